package dev.homing.bench.jmh;

import dev.homing.core.policy.reference.CacheAwarePolicy;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import java.util.Arrays;
import java.util.Locale;

/**
 * load_aware_affinity's decision time over cache_aware's, on {@link RoutingDecisionBenchmark}'s prompts and fleet,
 * for a machine shared with other work. JMH measures one benchmark after the other, so a neighbour's build that
 * starts between them skews their ratio; here the two policies alternate in short rounds and the ratio is the median
 * of the rounds' ratios, so both see the same load. The absolute times are indicative only; JMH's are the reference.
 *
 * <p>Run: {@code java -cp homing-bench/target/benchmarks.jar dev.homing.bench.jmh.InterleavedDecisionRatio}.
 * Bounded: 5 warm-up and 10 measured rounds per case, each a fixed number of decisions.
 */
public final class InterleavedDecisionRatio {

    private static final int WARMUP_ROUNDS = 5;
    private static final int ROUNDS = 10;

    private InterleavedDecisionRatio() {
    }

    public static void main(String[] args) {
        System.out.println("| prompt chars | workers | load_aware_affinity (ns) | cache_aware (ns) | ratio (median) |");
        System.out.println("|---:|---:|---:|---:|---:|");
        for (int chars : new int[] {1024, 16384}) {
            for (int workers : new int[] {8, 64, 512}) {
                measure(chars, workers);
            }
        }
    }

    private static void measure(int chars, int workers) {
        DecisionFixture fixture = new DecisionFixture(chars, workers);
        PolicyConfig config = PolicyConfig.DEFAULTS.withSeed(1);
        RoutingPolicy affinity = fixture.warmed(new LoadAwareAffinityPolicy(config, System::nanoTime));
        RoutingPolicy cacheAware = fixture.warmed(new CacheAwarePolicy(config, System::nanoTime));
        // About 20 ms of decisions a round at either size.
        int decisions = chars >= 16384 ? 5_000 : 40_000;
        double[] affinityNanos = new double[ROUNDS];
        double[] cacheAwareNanos = new double[ROUNDS];
        double[] ratios = new double[ROUNDS];
        for (int round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
            double a = nanosPerDecision(affinity, fixture, decisions);
            double c = nanosPerDecision(cacheAware, fixture, decisions);
            if (round >= 0) {
                affinityNanos[round] = a;
                cacheAwareNanos[round] = c;
                ratios[round] = a / c;
            }
        }
        System.out.printf(Locale.ROOT, "| %,d | %d | %,.0f | %,.0f | %.2f |%n", chars, workers,
                median(affinityNanos), median(cacheAwareNanos), median(ratios));
    }

    private static double nanosPerDecision(RoutingPolicy policy, DecisionFixture fixture, int decisions) {
        long start = System.nanoTime();
        int sink = 0;
        for (int i = 0; i < decisions; i++) {
            sink += policy.select(fixture.workers, RoutingRequest.ofText(fixture.prompts[i % fixture.prompts.length]))
                    .workerIndex();
        }
        long nanos = System.nanoTime() - start;
        return sink == Integer.MIN_VALUE ? 0 : (double) nanos / decisions; // the sink keeps the loop alive
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
