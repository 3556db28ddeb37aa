package dev.homing.core.kv;

import java.util.Map;

/**
 * What the engines hold of one prompt, per worker whose events are trusted now: the exact view a routing decision
 * may use beside the prefix tree. A worker absent from the map is not exact (its events are stale or absent), and
 * the policy judges it by the tree.
 *
 * @param promptTokens              the prompt's tokens, as its engine will count them
 * @param cachedTokensByExactWorker per worker whose view is exact, the leading prompt tokens its engine holds
 */
public record ExactOverlay(int promptTokens, Map<String, Integer> cachedTokensByExactWorker) {

    /** No exact view: every worker is judged by the tree. */
    public static final ExactOverlay NONE = new ExactOverlay(0, Map.of());

    public ExactOverlay {
        if (promptTokens < 0) {
            throw new IllegalArgumentException("a prompt has at least 0 tokens, got " + promptTokens);
        }
        cachedTokensByExactWorker = Map.copyOf(cachedTokensByExactWorker);
    }

    /** Whether {@code workerId}'s view is exact. */
    public boolean exact(String workerId) {
        return cachedTokensByExactWorker.containsKey(workerId);
    }

    /** The most prompt tokens any exact worker's engine holds; 0 when none is exact. */
    public int longestHeld() {
        int longest = 0;
        for (int tokens : cachedTokensByExactWorker.values()) {
            longest = Math.max(longest, tokens);
        }
        return longest;
    }

    /** The prompt tokens {@code workerId}'s engine holds; 0 when absent. */
    public int cachedTokens(String workerId) {
        return cachedTokensByExactWorker.getOrDefault(workerId, 0);
    }
}
