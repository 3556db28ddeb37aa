package dev.homing.sim.model;

/**
 * The engine model's settings, with defaults for an 8B model on one H100 ({@link #DEFAULTS}).
 *
 * @param kvTokens           KV pool size in tokens. An H100 (80 GB) less 16 GB of weights and activation headroom
 *                           leaves about 50 GB at 128 KiB a token: about 400,000 tokens, what SGLang reports as
 *                           {@code max_total_num_tokens} for such a setup
 * @param pageSize           tokens per KV page; 1 (SGLang's default) means every token can be shared
 * @param maxRunningRequests most requests in the batch at once (prefilling or decoding)
 * @param chunkedPrefillSize most uncached prompt tokens computed in one prefill step; longer prompts are chunked
 *                           (SGLang's default for 80 GB GPUs is 8192)
 * @param contextLength      longest prompt plus output a request may ask for (Llama 3.1: 131,072)
 * @param timing             step durations
 * @param seed               salt of the pseudo-word output, so two engines may answer differently
 */
public record EngineConfig(
    int kvTokens,
    int pageSize,
    int maxRunningRequests,
    int chunkedPrefillSize,
    int contextLength,
    TimingModel timing,
    long seed) {

    public static final EngineConfig DEFAULTS =
        new EngineConfig(400_000, 1, 256, 8192, 131_072, TimingModel.H100_8B, 0);

    public EngineConfig {
        if (kvTokens <= 0 || pageSize <= 0 || maxRunningRequests <= 0 || chunkedPrefillSize <= 0
            || contextLength <= 0) {
            throw new IllegalArgumentException("engine sizes must be positive");
        }
        if (timing == null) {
            throw new IllegalArgumentException("timing is required");
        }
    }

    public EngineConfig withKvTokens(int tokens) {
        return new EngineConfig(tokens, pageSize, maxRunningRequests, chunkedPrefillSize, contextLength, timing, seed);
    }

    public EngineConfig withMaxRunningRequests(int requests) {
        return new EngineConfig(kvTokens, pageSize, requests, chunkedPrefillSize, contextLength, timing, seed);
    }
}
