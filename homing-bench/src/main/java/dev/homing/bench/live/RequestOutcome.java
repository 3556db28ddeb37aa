package dev.homing.bench.live;

/**
 * How one request ended, with the times a latency is measured from. Times are {@link System#nanoTime()} values;
 * a time not reached is -1.
 *
 * @param status          how it ended
 * @param httpStatus      the response status, 0 when no response head arrived
 * @param intendedNanos   when it should have been sent: latencies count from here, so a late sender (or a full
 *                        connection pool) shows up as latency instead of being hidden (coordinated omission)
 * @param sentNanos       when the client asked for a connection to send it
 * @param firstTokenNanos when the first chunk carrying output text arrived (streaming only)
 * @param endNanos        when it ended, by success, error or cancellation
 * @param gapNanos        the time between consecutive chunks carrying output text, in order
 * @param textChunks      how many chunks carried output text
 * @param usage           the counts the server reported, or null when it sent none
 * @param routing         what a Homing gateway said of its decision (response headers), or null
 * @param text            the answer's text when it was asked for, else null
 * @param error           a short description of an error, else null
 */
public record RequestOutcome(Status status, int httpStatus, long intendedNanos, long sentNanos, long firstTokenNanos,
                             long endNanos, long[] gapNanos, int textChunks, Usage usage, RoutingNote routing,
                             String text, String error) {

    /** The ways a request ends; each sent request ends in exactly one. */
    public enum Status {
        SUCCESS,
        /** The server answered with a status other than 2xx. */
        HTTP_ERROR,
        /** No connection, or the connection closed or reset before the answer ended. */
        CONNECTION,
        /** Nothing arrived for longer than the idle timeout. */
        TIMEOUT,
        /** The answer could not be read (a line over the size limit, JSON that does not parse). */
        INVALID_RESPONSE,
        /** The run stopped it at its duration cap. */
        CANCELLED
    }

    public boolean succeeded() {
        return status == Status.SUCCESS;
    }

    /** Time to first token from the intended send time, or -1 when no text arrived. */
    public long ttftNanos() {
        return firstTokenNanos < 0 ? -1 : firstTokenNanos - intendedNanos;
    }

    /** End-to-end time from the intended send time. */
    public long e2eNanos() {
        return endNanos - intendedNanos;
    }

    /** How errors are counted in a report: {@code http_503}, {@code connection}, {@code timeout}, ... */
    public String errorKind() {
        return status == Status.HTTP_ERROR ? "http_" + httpStatus : status.name().toLowerCase(java.util.Locale.ROOT);
    }
}
