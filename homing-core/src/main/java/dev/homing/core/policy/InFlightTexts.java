package dev.homing.core.policy;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The routing texts placed on each worker whose KV its engine may not have reported yet: from the placement until
 * {@link #SETTLE_NANOS} after the request's first token (or its end). An engine stores a prompt's blocks only once it
 * has computed them, and its events arrive a moment later, so an exact view alone misses a prefix that is still in
 * prefill; the policies take the longer of the exact view and the text shared with these.
 *
 * <p>Bounded: at most {@link #LIMIT} texts a worker, the oldest dropped first; a decision reads one character of most
 * of them (only a text that agrees there is compared in full). Thread-safe: each worker's list is
 * locked by itself (placements come from decisions, first tokens and ends from any thread).
 */
final class InFlightTexts {

    /**
     * A burst sends many requests to a worker before any is prefilled (the shared-prefix burst: 128 each of 8
     * workers); at 32 a group's prefix was dropped before its events came, and its later requests went elsewhere.
     */
    static final int LIMIT = 256;
    /** How long after its prefill a text still counts: the engine's events are on their way for a few milliseconds. */
    static final long SETTLE_NANOS = 100_000_000L;

    private static final class Placed {
        final String text;
        final Decision decision;
        long settledAt = Long.MAX_VALUE;

        Placed(String text, Decision decision) {
            this.text = text;
            this.decision = decision;
        }
    }

    private final LongSupplier clock;
    private final Map<String, ArrayDeque<Placed>> byWorker = new ConcurrentHashMap<>();

    InFlightTexts(LongSupplier clock) {
        this.clock = clock;
    }

    /** {@code decision} placed {@code text} on {@code workerId}. */
    void placed(String workerId, String text, Decision decision) {
        ArrayDeque<Placed> placed = byWorker.computeIfAbsent(workerId, id -> new ArrayDeque<>());
        synchronized (placed) {
            if (placed.size() == LIMIT) {
                placed.pollFirst();
            }
            placed.addLast(new Placed(text, decision));
        }
    }

    /** The prefill of the request {@code decision} placed on {@code workerId} is done (its first token, or its end). */
    void prefillDone(String workerId, Decision decision) {
        ArrayDeque<Placed> placed = byWorker.get(workerId);
        if (placed == null) {
            return;
        }
        synchronized (placed) {
            for (Placed p : placed) {
                if (p.decision == decision && p.settledAt == Long.MAX_VALUE) {
                    p.settledAt = clock.getAsLong();
                }
            }
        }
    }

    /**
     * The leading characters of {@code text} shared with a text still in flight on {@code workerId}, when longer
     * than {@code beyond}; else {@code beyond}. Forgets the texts that have settled.
     */
    int longestShared(String workerId, String text, int beyond) {
        ArrayDeque<Placed> placed = byWorker.get(workerId);
        if (placed == null) {
            return beyond;
        }
        long now = clock.getAsLong();
        int longest = beyond;
        synchronized (placed) {
            placed.removeIf(p -> p.settledAt != Long.MAX_VALUE && now - p.settledAt > SETTLE_NANOS);
            for (Placed p : placed) {
                // Only a text that agrees beyond the best so far can raise it: one look spares most full compares.
                if (p.text.length() > longest && text.length() > longest
                        && p.text.charAt(longest) == text.charAt(longest)) {
                    longest = Math.max(longest, sharedPrefix(text, p.text));
                }
            }
        }
        return longest;
    }

    void forget(String workerId) {
        byWorker.remove(workerId);
    }

    private static int sharedPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
