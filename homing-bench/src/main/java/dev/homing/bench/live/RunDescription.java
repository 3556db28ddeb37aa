package dev.homing.bench.live;

/**
 * What was run, as the result file records it, so a result can be reproduced from itself.
 *
 * @param url                what was driven
 * @param endpoint           the path posted to
 * @param workload           the workload's name
 * @param pacing             {@code open-loop} or {@code closed-loop}
 * @param rate               conversation starts per second of a generated open-loop workload; 0 when not used
 * @param rateScale          speed-up of a trace's timestamps; 1 when not used
 * @param concurrency        requests in flight of a closed loop; 0 for open loop
 * @param stream             whether answers were streamed
 * @param seed               the workload's seed
 * @param maxRequests        the request cap
 * @param durationCapSeconds the duration cap
 */
public record RunDescription(String url, String endpoint, String workload, String pacing, double rate,
                             double rateScale, int concurrency, boolean stream, long seed, long maxRequests,
                             double durationCapSeconds) {
}
