package dev.homing.sim.model;

/**
 * A snapshot of the engine's load and counters, in the terms SGLang reports them.
 *
 * @param runningRequests   admitted requests (prefilling or decoding)
 * @param waitingRequests   requests queued for admission
 * @param usedTokens        KV slots holding computed tokens: the cache tree plus running requests' own tokens
 * @param cachedTokens      KV slots held by the cache tree
 * @param capacityTokens    KV pool size
 * @param promptTokensTotal prompt tokens of all admitted requests
 * @param cachedTokensTotal of those, tokens found in the cache
 * @param generationTokensTotal output tokens emitted
 * @param finishedRequestsTotal requests that completed
 */
public record EngineStats(
    int runningRequests,
    int waitingRequests,
    int usedTokens,
    int cachedTokens,
    int capacityTokens,
    long promptTokensTotal,
    long cachedTokensTotal,
    long generationTokensTotal,
    long finishedRequestsTotal) {

    /** Share of admitted prompt tokens that were cache hits. */
    public double cacheHitRate() {
        return promptTokensTotal == 0 ? 0 : (double) cachedTokensTotal / promptTokensTotal;
    }

    /** Share of the KV pool in use. */
    public double tokenUsage() {
        return (double) usedTokens / capacityTokens;
    }
}
