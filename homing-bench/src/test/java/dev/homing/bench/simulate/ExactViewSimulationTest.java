package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.bench.workload.Workload;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExactViewSimulationTest {

    private static final SimulationSettings FOUR = SimulationSettings.defaults(4);

    private static SimulationSettings routedOn(RoutingViews.Mode mode) {
        return FOUR.withViews(RoutingViews.TREE.withMode(mode));
    }

    private static Workload sharedPrefix() {
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(8, 8, 512, 32, 16, 50.0, true, 7));
    }

    @Test
    void theTreeAloneReportsNoPredictions() {
        SimulationResult result = Simulation.run(FOUR, RequestShape.CHAT, sharedPrefix(), "cache_aware");

        assertThat(result.policy()).isEqualTo("cache_aware");
        assertThat(result.prediction()).isNull();
        assertThat(result.toReport().prediction()).isNull();
    }

    @Test
    void theExactViewPredictsWhatTheEnginesReportWithinTwoPercentOfThePrompt() {
        for (String policy : List.of("cache_aware", "load_aware_affinity")) {
            SimulationResult result = Simulation.run(routedOn(RoutingViews.Mode.EXACT), RequestShape.CHAT,
                    new MultiTurnChat(MultiTurnChat.Shape.typical(2.0, Limits.conversations(60), 3)), policy);

            assertThat(result.policy()).isEqualTo(policy + " (exact)");
            assertThat(result.prediction().view()).isEqualTo("exact");
            assertThat(result.prediction().exact()).as(policy).isLessThan(0.02);
            assertThat(result.prediction().tree()).as(policy).isGreaterThan(result.prediction().exact());
        }
    }

    @Test
    void aSharedPrefixStillInPrefillAttractsItsGroupUnderTheExactView() {
        // 512 requests at once, 128 a worker: no prompt's blocks are stored when the others are placed, so each
        // group's later requests find their prefix only among the texts still in prefill.
        Workload burst = new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(64, 8, 512, 32, 16,
                Double.POSITIVE_INFINITY, true, 7));
        for (String policy : List.of("cache_aware", "load_aware_affinity")) {
            SimulationResult tree = Simulation.run(routedOn(RoutingViews.Mode.BOTH), RequestShape.CHAT, burst, policy);
            SimulationResult exact = Simulation.run(routedOn(RoutingViews.Mode.EXACT), RequestShape.CHAT, burst,
                    policy);

            assertThat(tree.policy()).isEqualTo(policy + " (tree)");
            assertThat(exact.hitRate()).as(policy).isEqualTo(tree.hitRate());
        }
    }

    @Test
    void aPrefillDecodeFleetsPrefillLegIsJudgedOnWhatThePrefillEnginesHold() {
        SimulationSettings pd = routedOn(RoutingViews.Mode.EXACT).withFleet(
                new FleetShape(FleetShape.Kind.DISAGGREGATED, 2, 2, 1, FOUR.fleet().disaggregation()));
        SimulationResult result = Simulation.run(pd, RequestShape.CHAT,
                new MultiTurnChat(MultiTurnChat.Shape.typical(2.0, Limits.conversations(60), 3)), "load_aware_affinity");

        assertThat(result.prediction().view()).isEqualTo("exact");
        assertThat(result.prediction().exact()).isLessThan(0.02);
        assertThat(result.hitRate()).as("later turns find their history on their prefill engine").isGreaterThan(0.5);
    }

    @Test
    void theExactViewIsRefusedForWorkersOfSeveralEngines() {
        assertThatThrownBy(() -> routedOn(RoutingViews.Mode.EXACT).withFleet(
                new FleetShape(FleetShape.Kind.DATA_PARALLEL, 4, 4, 2, FOUR.fleet().disaggregation())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(SimulationSettings.EXACT_NEEDS_ONE_ENGINE);
    }
}
