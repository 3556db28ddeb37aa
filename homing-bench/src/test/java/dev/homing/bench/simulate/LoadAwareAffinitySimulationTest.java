package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.core.policy.affinity.AffinitySettings;
import dev.homing.bench.workload.Workload;
import org.junit.jupiter.api.Test;

/** load_aware_affinity against the reference's cache_aware, on the same small workload, engines and seed. */
class LoadAwareAffinitySimulationTest {

    private static final SimulationSettings FOUR_WORKERS = SimulationSettings.defaults(4);

    /** 16 groups of 8 prompts sharing a 512-token system prompt, all at once. */
    private static Workload sharedPrefixBurst() {
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(16, 8, 512, 32, 16, 50.0, true, 7));
    }

    @Test
    void findsAtLeastAsMuchInCacheAsCacheAware() {
        SimulationResult affinity = Simulation.run(FOUR_WORKERS, RequestShape.CHAT, sharedPrefixBurst(),
                "load_aware_affinity");
        SimulationResult cacheAware = Simulation.run(FOUR_WORKERS, RequestShape.CHAT, sharedPrefixBurst(),
                "cache_aware");

        assertThat(affinity.errors()).isZero();
        assertThat(affinity.cachedTokens()).isGreaterThanOrEqualTo(cacheAware.cachedTokens());
    }

    /** The same groups, every prompt arriving at the same instant. */
    private static Workload allAtOnce() {
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(16, 8, 512, 32, 16, Double.POSITIVE_INFINITY,
                true, 7));
    }

    @Test
    void promptsHeldForTheirGroupsFirstPrefillFindThePromptCached() {
        AffinitySettings noWait = AffinitySettings.DEFAULTS.withPrefillWaitMillis(0);
        SimulationResult waiting = Simulation.run(FOUR_WORKERS, RequestShape.CHAT, allAtOnce(),
                "load_aware_affinity");
        SimulationResult sentAtOnce = Simulation.run(FOUR_WORKERS.withPolicy(FOUR_WORKERS.policy().withAffinity(noWait)),
                RequestShape.CHAT, allAtOnce(), "load_aware_affinity");

        assertThat(waiting.held()).as("every group's prompts after its first").isEqualTo(16 * 7);
        assertThat(waiting.heldUntilTimeout()).isZero();
        assertThat(waiting.hitRate()).isEqualTo(waiting.bounds().oracle().tokenRate(), within(0.005));
        assertThat(sentAtOnce.held()).isZero();
        assertThat(sentAtOnce.cachedTokens()).isLessThan(waiting.cachedTokens());
    }
}
