package dev.homing.core.policy;

/**
 * What an engine said about one request it served, read from the response's usage
 * ({@code usage.prompt_tokens}, {@code usage.prompt_tokens_details.cached_tokens} or {@code meta_info.cached_tokens}).
 *
 * @param promptTokens       prompt tokens the engine counted; {@link #UNKNOWN} when not reported
 * @param cachedTokens       of those, tokens it found in its KV cache; {@link #UNKNOWN} when not reported
 * @param firstTokenReported whether the caller already reported the first token ({@link RoutingPolicy#onFirstToken})
 */
public record EngineReport(int promptTokens, int cachedTokens, boolean firstTokenReported) {

    public static final int UNKNOWN = -1;

    /** The request failed or its usage was not reported. */
    public static EngineReport unknown(boolean firstTokenReported) {
        return new EngineReport(UNKNOWN, UNKNOWN, firstTokenReported);
    }

    /** Whether both counts are known, so the cache the engine really had can be compared with the prediction. */
    public boolean knowsCache() {
        return promptTokens > 0 && cachedTokens >= 0;
    }
}
