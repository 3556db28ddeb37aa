package dev.homing.sim.model;

import java.util.List;

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

    /** The stats of several engines (a server's ranks) as one engine's: every count and size summed. */
    public static EngineStats sum(List<EngineStats> engines) {
        if (engines.size() == 1) {
            return engines.getFirst();
        }
        int running = 0;
        int waiting = 0;
        int used = 0;
        int cached = 0;
        int capacity = 0;
        long prompt = 0;
        long cachedTotal = 0;
        long generation = 0;
        long finished = 0;
        for (EngineStats e : engines) {
            running += e.runningRequests;
            waiting += e.waitingRequests;
            used += e.usedTokens;
            cached += e.cachedTokens;
            capacity += e.capacityTokens;
            prompt += e.promptTokensTotal;
            cachedTotal += e.cachedTokensTotal;
            generation += e.generationTokensTotal;
            finished += e.finishedRequestsTotal;
        }
        return new EngineStats(running, waiting, used, cached, capacity, prompt, cachedTotal, generation, finished);
    }

    /** Share of admitted prompt tokens that were cache hits. */
    public double cacheHitRate() {
        return promptTokensTotal == 0 ? 0 : (double) cachedTokensTotal / promptTokensTotal;
    }

    /** Share of the KV pool in use. */
    public double tokenUsage() {
        return (double) usedTokens / capacityTokens;
    }
}
