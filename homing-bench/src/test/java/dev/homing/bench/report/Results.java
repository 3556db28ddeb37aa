package dev.homing.bench.report;

import java.util.List;

/** A small comparison of three policies on four workers, for the report tests. */
final class Results {

    private Results() {
    }

    static Comparison threePolicies() {
        PolicyResult random = PolicyResult.of("random", 0.13, LatencyCdf.ofMillis(40, 55, 80, 120, 900), 3.1, 41_000, 0,
                List.of(new WorkerShare("w0", 30, 3_000), new WorkerShare("w1", 25, 2_500),
                        new WorkerShare("w2", 25, 2_500), new WorkerShare("w3", 20, 2_000)));
        PolicyResult cacheAware = PolicyResult.of("cache_aware", 0.35, LatencyCdf.ofMillis(20, 22, 30, 45, 300), 3.4,
                45_500, 2, List.of(new WorkerShare("w0", 26, 2_600), new WorkerShare("w1", 24, 2_400),
                        new WorkerShare("w2", 25, 2_500), new WorkerShare("w3", 25, 2_500)));
        PolicyResult prefixHash = PolicyResult.of("prefix <hash> & co", 0.30, LatencyCdf.ofMillis(25, 900, 4_000), 2.0,
                30_000, 0, List.of(new WorkerShare("w0", 70, 7_000), new WorkerShare("w1", 10, 1_000),
                        new WorkerShare("w2", 10, 1_000), new WorkerShare("w3", 10, 1_000)));
        return new Comparison("Routing policies compared", "mooncake-conversation x2, 4 workers",
                List.of(random, cacheAware, prefixHash), new HitRateBounds(0.374, 0.268, 4_000_000));
    }
}
