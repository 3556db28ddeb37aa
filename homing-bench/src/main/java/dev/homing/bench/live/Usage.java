package dev.homing.bench.live;

/**
 * Token counts an answer reported: OpenAI's {@code usage} ({@code prompt_tokens_details.cached_tokens}) or SGLang's
 * {@code meta_info}. {@code cachedTokens} is -1 when the server did not say.
 */
public record Usage(long promptTokens, long completionTokens, long cachedTokens) {

    public boolean reportsCachedTokens() {
        return cachedTokens >= 0;
    }
}
