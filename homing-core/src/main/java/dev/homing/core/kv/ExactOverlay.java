package dev.homing.core.kv;

import java.util.Map;

/** What the engines hold of one prompt, per worker whose events are trusted now. */
public record ExactOverlay(int promptTokens, Map<String, Integer> cachedTokensByExactWorker) {
    public static final ExactOverlay NONE = new ExactOverlay(0, Map.of());

    /** The worker's view is EXACT. */
    public boolean exact(String workerId) {
        return cachedTokensByExactWorker.containsKey(workerId);
    }

    /** The prompt's leading tokens the worker's engine holds; 0 when absent. */
    public int cachedTokens(String workerId) {
        return cachedTokensByExactWorker.getOrDefault(workerId, 0);
    }
}
