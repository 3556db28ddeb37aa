package dev.homing.bench.live;

/** How a run paces its requests. */
public sealed interface Pacing {

    /**
     * Each conversation starts at its own start time (the workload's arrival process: Poisson at a rate, or a
     * trace's timestamps), whether or not earlier requests have been answered, and a later turn follows its answer
     * by the think time. Latency counts from when a request was due, so a slow server cannot slow the arrivals and
     * hide its own queueing (coordinated omission).
     */
    record OpenLoop() implements Pacing {
    }

    /**
     * At most {@code concurrency} requests in flight: a finished request frees its slot for the next ready turn or
     * the next conversation, whose start time is ignored. Latency counts from the actual send.
     */
    record ClosedLoop(int concurrency) implements Pacing {
        public ClosedLoop {
            if (concurrency <= 0) {
                throw new IllegalArgumentException("concurrency must be positive: " + concurrency);
            }
        }
    }
}
