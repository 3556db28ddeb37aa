package dev.homing.bench.live;

/**
 * How a driven run ended.
 *
 * @param startNanos           when the first request was due ({@link System#nanoTime()})
 * @param endNanos             when the last request ended
 * @param stoppedAtDurationCap whether the duration cap stopped it (requests in flight then were cancelled)
 * @param unsentTurns          turns of started conversations that were never sent: after a failed turn (its
 *                             answer is missing), or because a cap came first
 */
public record DriverSummary(long startNanos, long endNanos, boolean stoppedAtDurationCap, long unsentTurns) {

    public double elapsedSeconds() {
        return (endNanos - startNanos) / 1e9;
    }
}
