package dev.homing.gateway.resilience;

/**
 * How one attempt at a worker ended, as the circuit breaker and the retry policy both need to know it. One place
 * decides what is the worker's fault, so the breaker and retries cannot disagree.
 *
 * <p>Homing's rule (the reference counts every non-2xx as a breaker failure, its issue #25811, so one client sending
 * over-long prompts could open every circuit of a fleet):
 * <ul>
 *   <li>2xx and client 4xx (400, 401, 404, 413, 422...): the worker answered, it works: a breaker success, no retry;
 *   <li>429 and 503: the worker is full (its queue, its KV cache) or draining, not broken: backpressure, neither
 *       breaker success nor failure, retried on another worker. Counted as failures, an engine shedding load at its
 *       peak would open its circuit and lose all traffic just as it recovered (with one worker, the whole service);
 *   <li>408 and a gateway-side timeout: the worker did not keep up: a breaker failure, retried;
 *   <li>508 (a worker that is a gateway found the request going round a loop of gateways): as a client error; the
 *       worker works, and no other worker would end the loop;
 *   <li>any other 5xx: a breaker failure; 500, 502, 504 are retried (501, 505... are not: asking again changes
 *       nothing);
 *   <li>connection refused, reset or failed before an answer: a breaker failure, retried.
 * </ul>
 * A connection that could not even be opened because the gateway is out of file descriptors
 * ({@link #isGatewayExhaustion}) is no outcome of the worker's at all: the proxy waits for a socket instead.
 */
public enum UpstreamOutcome {
    SUCCESS,
    CLIENT_ERROR,
    /** 429 or 503: backpressure from a full or draining worker. */
    BUSY,
    TIMEOUT,
    SERVER_ERROR,
    CONNECTION_FAILED;

    /** The outcome of a worker's HTTP status. */
    public static UpstreamOutcome ofStatus(int status) {
        if (status == 408) {
            return TIMEOUT;
        }
        if (status == 429 || status == 503) {
            return BUSY;
        }
        if (status == 508) {
            return CLIENT_ERROR;
        }
        if (status >= 500) {
            return SERVER_ERROR;
        }
        if (status >= 400) {
            return CLIENT_ERROR;
        }
        return SUCCESS;
    }

    /**
     * Whether a failed connection attempt failed for want of the gateway's own resources: the process is out of file
     * descriptors (EMFILE) or the system out of them (ENFILE). Every worker would fail the same way, and blaming
     * them opened every circuit of a fleet under a burst of thousands of streams.
     */
    public static boolean isGatewayExhaustion(Throwable err) {
        // A few causes deep is where Vert.x and Netty put the socket's own error; the bound also ends a cyclic chain.
        Throwable t = err;
        for (int depth = 0; t != null && depth < 4; depth++, t = t.getCause()) {
            String message = t.getMessage();
            // The JDK and Netty pass on the C library's text for EMFILE and ENFILE; both start the same way.
            if (message != null && message.contains("Too many open files")) {
                return true;
            }
        }
        return false;
    }

    /** Counts toward opening the worker's circuit. */
    public boolean isWorkerFailure() {
        return this == TIMEOUT || this == SERVER_ERROR || this == CONNECTION_FAILED;
    }

    /** Counts toward closing the worker's circuit: the worker answered the request on its merits. */
    public boolean isWorkerSuccess() {
        return this == SUCCESS || this == CLIENT_ERROR;
    }

    /** Worth asking again, given the status that produced it (0 when there was no HTTP answer). */
    public static boolean isRetryable(UpstreamOutcome outcome, int status) {
        return switch (outcome) {
            case SUCCESS, CLIENT_ERROR -> false;
            case BUSY, TIMEOUT, CONNECTION_FAILED -> true;
            case SERVER_ERROR -> status == 0 || status == 500 || status == 502 || status == 504;
        };
    }
}
