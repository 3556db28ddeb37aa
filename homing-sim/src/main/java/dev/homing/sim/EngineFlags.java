package dev.homing.sim;

import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.TimingModel;
import picocli.CommandLine.Option;

/**
 * The simulated engine's capacity, batching and timing flags, shared by {@code homing sim-engine} (one engine over
 * HTTP) and {@code homing simulate} (a fleet of the same engine model in virtual time), so both describe an engine
 * the same way. A picocli mixin; defaults are {@link EngineConfig#DEFAULTS}.
 */
public final class EngineFlags {

    private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;
    private static final TimingModel TIMING = ENGINE.timing();

    @Option(names = "--kv-tokens", description = "KV cache capacity of an engine in tokens (default: ${DEFAULT-VALUE}).")
    int kvTokens = ENGINE.kvTokens();

    @Option(names = "--page-size", description = "Tokens per KV page (default: ${DEFAULT-VALUE}).")
    int pageSize = ENGINE.pageSize();

    @Option(names = "--max-running-requests",
        description = "Most requests in an engine's running batch (default: ${DEFAULT-VALUE}).")
    int maxRunningRequests = ENGINE.maxRunningRequests();

    @Option(names = "--chunked-prefill-size",
        description = "Most uncached prompt tokens per prefill step (default: ${DEFAULT-VALUE}).")
    int chunkedPrefillSize = ENGINE.chunkedPrefillSize();

    @Option(names = "--context-length",
        description = "Longest prompt plus output in tokens (default: ${DEFAULT-VALUE}).")
    int contextLength = ENGINE.contextLength();

    @Option(names = "--prefill-tokens-per-second",
        description = "Prefill throughput for uncached tokens (default: ${DEFAULT-VALUE}).")
    double prefillTokensPerSecond = TIMING.prefillTokensPerSecond();

    @Option(names = "--prefill-step-us", description = "Fixed cost of a prefill step (default: ${DEFAULT-VALUE}).")
    long prefillStepMicros = TIMING.prefillStepNanos() / 1000;

    @Option(names = "--decode-step-us", description = "Fixed cost of a decode step (default: ${DEFAULT-VALUE}).")
    long decodeStepMicros = TIMING.decodeStepNanos() / 1000;

    @Option(names = "--decode-us-per-request",
        description = "Decode step cost per request in the batch (default: ${DEFAULT-VALUE}).")
    long decodeMicrosPerRequest = TIMING.decodeNanosPerRequest() / 1000;

    @Option(names = "--decode-ns-per-context-token",
        description = "Decode step cost per token of context in the batch (default: ${DEFAULT-VALUE}).")
    long decodeNanosPerContextToken = TIMING.decodeNanosPerContextToken();

    /**
     * The engine these flags describe.
     *
     * @throws IllegalArgumentException for values no engine can have
     */
    public EngineConfig config(long seed) {
        TimingModel timing = new TimingModel(prefillTokensPerSecond, prefillStepMicros * 1000,
            decodeStepMicros * 1000, decodeMicrosPerRequest * 1000, decodeNanosPerContextToken);
        return new EngineConfig(kvTokens, pageSize, maxRunningRequests, chunkedPrefillSize, contextLength, timing,
            seed);
    }
}
