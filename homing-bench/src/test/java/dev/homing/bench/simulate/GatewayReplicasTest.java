package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.bench.workload.Workload;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Several simulated gateway replicas in front of one fleet, with and without sync. */
class GatewayReplicasTest {

    private static final SimulationSettings EIGHT = SimulationSettings.defaults(8).withEngine(
            SimulationSettings.defaults(8).engine().withKvTokens(20_000));
    private static final GatewayReplicas FOUR = new GatewayReplicas(4, false, 2_000_000, true, 256, 0);

    private static Workload chats() {
        return new MultiTurnChat(MultiTurnChat.Shape.typical(2.0, Limits.conversations(60), 3));
    }

    private static SimulationResult run(GatewayReplicas replicas, String policy) {
        return run(EIGHT, replicas, policy);
    }

    private static SimulationResult run(SimulationSettings settings, GatewayReplicas replicas, String policy) {
        return Simulation.run(settings.withReplicas(replicas), RequestShape.CHAT, chats(), policy);
    }

    @Test
    void fourReplicasKeptInStepHitAsOneGatewayDoesAndIndependentOnesDoNot() {
        for (String policy : List.of("load_aware_affinity", "cache_aware")) {
            SimulationResult one = run(GatewayReplicas.ONE, policy);
            SimulationResult synced = run(FOUR, policy);
            SimulationResult independent = run(FOUR.withGateways(4, false), policy);

            assertThat(synced.hitRate()).as(policy).isCloseTo(one.hitRate(), within(0.02));
            assertThat(independent.hitRate()).as(policy).isLessThan(one.hitRate() - 0.1);
            assertThat(synced.policy()).isEqualTo(policy + " x4 sync");
            assertThat(synced.busBytes()).isPositive();
            assertThat(independent.busBytes()).isZero();
        }
    }

    /**
     * With the load factor fixed, so that the bound binds: engines this small (a prompt fills a tenth of a cache)
     * raise the default factor to about 2, and then the load follows where the conversations began (max/mean 1.60
     * for one gateway, 2.41 for four in step, at the same TTFT p99: docs/BENCHMARKS.md, Gateway replicas).
     */
    @Test
    void keptInStepTheReplicasDoNotPileOntoOneEngineMoreThanOneGatewayDoes() {
        SimulationSettings fixedFactor = EIGHT.withPolicy(EIGHT.policy().withAffinity(
                EIGHT.policy().affinity().withPromptShareSlack(0)));
        SimulationResult one = run(fixedFactor, GatewayReplicas.ONE, "load_aware_affinity");
        SimulationResult synced = run(fixedFactor, FOUR, "load_aware_affinity");

        assertThat(synced.maxMeanLoad()).as("one gateway: %.2f", one.maxMeanLoad())
                .isLessThanOrEqualTo(one.maxMeanLoad() * 1.1);
    }

    @Test
    void aRandomSplitIsSeededSoRunsRepeat() {
        GatewayReplicas random = new GatewayReplicas(4, true, 2_000_000, true, 256, 0);

        assertThat(run(random, "cache_aware").cachedTokens()).isEqualTo(run(random, "cache_aware").cachedTokens());
    }
}
