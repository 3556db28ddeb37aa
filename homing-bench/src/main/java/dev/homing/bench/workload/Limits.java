package dev.homing.bench.workload;

import java.time.Duration;

/**
 * Caps that keep every workload finite: no conversation starts after {@code maxConversations} have started or after
 * {@code maxStartMicros}. For a trace of one-turn requests, conversations are requests.
 */
public record Limits(int maxConversations, long maxStartMicros) {

    /** Everything a trace holds; generators need a real cap. */
    public static final Limits NONE = new Limits(Integer.MAX_VALUE, Long.MAX_VALUE);

    public Limits {
        if (maxConversations < 0 || maxStartMicros < 0) {
            throw new IllegalArgumentException("negative limit");
        }
    }

    public static Limits of(int maxConversations, Duration maxStart) {
        return new Limits(maxConversations, maxStart.toNanos() / 1_000);
    }

    public static Limits conversations(int maxConversations) {
        return new Limits(maxConversations, Long.MAX_VALUE);
    }

    /** Whether the {@code index}-th conversation (0-based), starting at {@code startMicros}, is within the caps. */
    public boolean admits(long index, long startMicros) {
        return index < maxConversations && startMicros <= maxStartMicros;
    }
}
