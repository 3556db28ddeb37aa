package dev.homing.sim.model;

/**
 * The link a decode engine receives KV over, in virtual time: transfers cross it one at a time at its full bandwidth,
 * in the order they are handed over, and each also pays a fixed latency that does not occupy the link (the
 * handshake and the completion poll overlap the next transfer's bytes).
 *
 * <p>Invariant: a transfer never starts before the previous one's bytes are through ({@code busyUntilNanos} only
 * grows). Not thread-safe: its decode engine owns it.
 */
public final class TransferLink {
    private final double bytesPerNano;
    private final long latencyNanos;
    private long busyUntilNanos;

    /**
     * @param gigabitsPerSecond the link's bandwidth, in 10^9 bits a second
     * @param latencyNanos      the fixed cost of each transfer
     */
    public TransferLink(double gigabitsPerSecond, long latencyNanos) {
        if (!(gigabitsPerSecond > 0) || latencyNanos < 0) {
            throw new IllegalArgumentException("the bandwidth must be positive and the latency not negative");
        }
        this.bytesPerNano = gigabitsPerSecond / 8;
        this.latencyNanos = latencyNanos;
    }

    /** Sends {@code bytes} that are ready at {@code readyNanos}; returns when they have all arrived. */
    public long transfer(long readyNanos, long bytes) {
        long start = Math.max(readyNanos, busyUntilNanos);
        busyUntilNanos = start + (long) Math.ceil(bytes / bytesPerNano);
        return busyUntilNanos + latencyNanos;
    }
}
