package dev.homing.sim.http;

/**
 * Faults the simulated engine injects, for the gateway's reliability tests. Zero or a negative value turns a fault
 * off; {@link #NONE} has them all off.
 *
 * @param failRate          share of inference requests answered at once with {@code failStatus} (0 to 1)
 * @param failStatus        the HTTP status of those failures
 * @param stallAfterTokens  stop sending after this many output tokens and hold the connection open
 * @param resetAfterTokens  close the connection abruptly after this many output tokens
 * @param dieAfterRequests  after this many inference requests, stop listening and reset every later request
 * @param slowHealthMillis  delay {@code /health} and {@code /health_generate} answers by this many milliseconds
 * @param seed              seed of the fault dice, so a test sees the same failures every run
 */
public record Faults(
    double failRate,
    int failStatus,
    int stallAfterTokens,
    int resetAfterTokens,
    int dieAfterRequests,
    long slowHealthMillis,
    long seed) {

    public static final Faults NONE = new Faults(0, 500, 0, 0, 0, 0, 0);

    public Faults {
        if (failRate < 0 || failRate > 1) {
            throw new IllegalArgumentException("fail rate must be between 0 and 1");
        }
        if (failStatus < 400 || failStatus > 599) {
            throw new IllegalArgumentException("fail status must be an HTTP error status (4xx or 5xx)");
        }
    }

    public Faults withFailRate(double rate, int status) {
        return new Faults(rate, status, stallAfterTokens, resetAfterTokens, dieAfterRequests, slowHealthMillis, seed);
    }

    public Faults withStallAfterTokens(int tokens) {
        return new Faults(failRate, failStatus, tokens, resetAfterTokens, dieAfterRequests, slowHealthMillis, seed);
    }

    public Faults withResetAfterTokens(int tokens) {
        return new Faults(failRate, failStatus, stallAfterTokens, tokens, dieAfterRequests, slowHealthMillis, seed);
    }

    public Faults withDieAfterRequests(int requests) {
        return new Faults(failRate, failStatus, stallAfterTokens, resetAfterTokens, requests, slowHealthMillis, seed);
    }

    public Faults withSlowHealthMillis(long millis) {
        return new Faults(failRate, failStatus, stallAfterTokens, resetAfterTokens, dieAfterRequests, millis, seed);
    }
}
