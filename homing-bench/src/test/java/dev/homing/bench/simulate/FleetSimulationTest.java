package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.PseudoText;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.TimingModel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fleets behind the simulated gateway: prefill/decode engines and data-parallel ranks. */
class FleetSimulationTest {

    /** 8 Gb/s is one byte a nanosecond: a transfer's wire time is its bytes. */
    private static final DisaggregationConfig LINK = new DisaggregationConfig(TimeUnit.SECONDS.toNanos(300), 8,
            1_000_000, 100);
    private static final SimulationSettings TWO_AND_TWO = SimulationSettings.defaults(2)
            .withFleet(new FleetShape(FleetShape.Kind.DISAGGREGATED, 2, 2, 1, LINK));

    private static Workload lone(int promptTokens, int outputTokens) {
        return new FixedWorkload("one", List.of(new Conversation("only", 0, "",
                List.of(new Turn(PseudoText.of(1, promptTokens), 0, outputTokens)))));
    }

    /** {@code count} conversations of {@code turns} turns, each its own text, started a second apart. */
    private static Workload conversations(int count, int turns) {
        List<Conversation> conversations = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            List<Turn> each = new ArrayList<>();
            for (int t = 0; t < turns; t++) {
                each.add(new Turn(PseudoText.of(100 * c + t, t == 0 ? 600 : 40), t == 0 ? 0 : 500_000, 16));
            }
            conversations.add(new Conversation("c" + c, c * 1_000_000L, "", each));
        }
        return new FixedWorkload("chats", conversations);
    }

    @Test
    void aPrefillDecodeRequestsFirstTokenComesAfterItsPrefillItsTransferAndOneDecodeStep() {
        SimulationResult result = Simulation.run(TWO_AND_TWO, RequestShape.COMPLETION, lone(1000, 5), "round_robin");

        TimingModel timing = TWO_AND_TWO.engine().timing();
        long expected = timing.prefillNanos(1000) + 1000 * 100 + 1_000_000 + timing.decodeNanos(1, 1000);
        assertThat(result.ttftNanos()).containsExactly(expected);
        assertThat(result.outputTokens()).as("the decode engine's, not the prefill's as well").isEqualTo(5);
        assertThat(result.promptTokens()).as("computed once, on the prefill engine").isEqualTo(1000);
        assertThat(result.interTokenGaps().count()).isEqualTo(4);
        assertThat(result.errors()).isZero();
    }

    @Test
    void theRoutingPolicyPlacesThePrefillLegAndTheDecodeLegIsBalanced() {
        SimulationResult result = Simulation.run(TWO_AND_TWO, RequestShape.CHAT, conversations(20, 3), "cache_aware");

        assertThat(result.requests()).isEqualTo(60);
        assertThat(result.errors()).isZero();
        assertThat(result.requestsPerWorker()).hasSize(2);
        assertThat(Arrays.stream(result.requestsPerWorker()).sum()).isEqualTo(60);
        assertThat(result.branches()).containsKey("hit");
        assertThat(result.hitRate()).isPositive();
    }

    @Test
    void aPrefillEngineNeverHoldsTheAnswersADecodeEngineWrote() {
        Workload chats = conversations(10, 4);
        SimulationResult regular = Simulation.run(SimulationSettings.defaults(2), RequestShape.CHAT, chats,
                "cache_aware");
        SimulationResult disaggregated = Simulation.run(TWO_AND_TWO, RequestShape.CHAT, chats, "cache_aware");

        // A later turn extends the earlier prompt and its answer; the prefill engine computed only the prompt.
        assertThat(disaggregated.cachedTokens()).isLessThan(regular.cachedTokens());
        assertThat(regular.cachedTokens() - disaggregated.cachedTokens()).isEqualTo(10 * 3 * (16 - 1));
    }

    @Test
    void roundRobinInsideOneServerLosesThePrefixesThatRoutingToItsRanksKeeps() {
        FleetShape ranks = new FleetShape(FleetShape.Kind.DATA_PARALLEL, 1, 1, 4, LINK);
        SimulationSettings oneServer = SimulationSettings.defaults(1).withFleet(ranks);
        Workload chats = conversations(20, 4);

        SimulationResult inServer = Simulation.run(oneServer, RequestShape.CHAT, chats, "cache_aware");
        SimulationResult routed = Simulation.run(oneServer.withFleet(ranks.withKind(FleetShape.Kind.RANK_AWARE)),
                RequestShape.CHAT, chats, "cache_aware");

        assertThat(inServer.requestsPerWorker()).hasSize(1);
        assertThat(routed.requestsPerWorker()).hasSize(4);
        assertThat(routed.hitRate()).isGreaterThan(inServer.hitRate() + 0.2);
        assertThat(oneServer.pooledKvTokens()).isEqualTo(4L * oneServer.engine().kvTokens());
    }

    @Test
    void aPrefillDecodeFleetsBoundsAreForItsPrefillEnginesMemory() {
        assertThat(TWO_AND_TWO.pooledKvTokens()).isEqualTo(2L * TWO_AND_TWO.engine().kvTokens());
    }

    @Test
    void everyFleetMeasuresTheGapsBetweenTokens() {
        SimulationResult result = Simulation.run(SimulationSettings.defaults(2), RequestShape.COMPLETION,
                lone(500, 10), "round_robin");

        long decodeStep = SimulationSettings.defaults(2).engine().timing().decodeNanos(1, 500 + 1);
        assertThat(result.interTokenGaps().count()).isEqualTo(9);
        assertThat(result.interTokenGaps().p50Millis()).isBetween(decodeStep / 1e6 * 0.99, decodeStep / 1e6 * 1.1);
    }

    @Test
    void aDecodeRequestWhosePrefillQueuedPastTheTimeoutFailsAndEndsItsConversation() {
        DisaggregationConfig impatient = new DisaggregationConfig(TimeUnit.SECONDS.toNanos(1), 8, 0, 1);
        SimulationSettings settings = SimulationSettings.defaults(1)
                .withFleet(new FleetShape(FleetShape.Kind.DISAGGREGATED, 1, 1, 1, impatient));
        List<Conversation> burst = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            burst.add(new Conversation("c" + i, 0, "", List.of(new Turn(PseudoText.of(i, 8000), 0, 4),
                    new Turn(PseudoText.of(50 + i, 10), 0, 4))));
        }

        SimulationResult result = Simulation.run(settings, RequestShape.CHAT, new FixedWorkload("burst", burst),
                "round_robin");

        // Each prompt takes over half a second to prefill, one after the other: only the first is handed over within
        // a second of its arrival; the others fail, and their conversations stop there.
        assertThat(result.errors()).isEqualTo(3);
        assertThat(result.requests()).isEqualTo(5);
        assertThat(result.ttftNanos()).hasSize(2);
    }
}
