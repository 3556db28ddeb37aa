package dev.homing.sim.http;

import dev.homing.sim.model.BuiltInTokenizer;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.kvevents.KvEventsOptions;
import dev.homing.sim.model.EngineConfig;
import dev.homing.tokenizer.PromptTokenizer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to run one simulated engine over HTTP. {@link #defaults()} listens on 127.0.0.1 on an ephemeral port, in
 * real time, with the engine model's defaults and no faults, serving whole requests on one rank; {@code homing
 * sim-engine} builds one from its flags (the settings table, which takes these defaults but for the ports: SGLang's).
 *
 * @param host      address to listen on
 * @param port      port to listen on; 0 picks a free one (see {@link SimEngineServer#port()})
 * @param modelName the model id served in {@code /v1/models} and answers
 * @param timeScale how many times faster than real time the engine runs (1 is real time; tests use 100 or more)
 * @param engine    the engine model: KV cache, scheduler, timing
 * @param faults    injected faults
 * @param requestIdLog file to append the {@code x-request-id} of each fully answered request to, or null for none
 * @param mode          the part of each request it serves: all of it, or the prefill or decode half
 * @param bootstrapPort a prefill engine's bootstrap port, where decode engines register rooms; 0 picks a free one
 *                      (see {@link SimEngineServer#bootstrapPort()})
 * @param disaggregation the roles' timeout and a decode engine's KV link
 * @param dpSize        data-parallel ranks behind the port, each an engine of its own (without disaggregation)
 * @param tokenizer     how prompts become tokens: {@link BuiltInTokenizer} (4 characters a token), or a model's own
 *                      (its owner closes it after the server)
 * @param kvEvents      whether and how each rank publishes its KV events (not on a decode engine)
 */
public record SimEngineOptions(
    String host,
    int port,
    String modelName,
    double timeScale,
    EngineConfig engine,
    Faults faults,
    Path requestIdLog,
    DisaggregationMode mode,
    int bootstrapPort,
    DisaggregationConfig disaggregation,
    int dpSize,
    PromptTokenizer tokenizer,
    KvEventsOptions kvEvents) {

    public static final String DEFAULT_MODEL = "meta-llama/Llama-3.1-8B-Instruct";
    /** Virtual nanoseconds fit a long for 292 years; at this scale that is still 25 hours of real time. */
    public static final double MAX_TIME_SCALE = 100_000;

    public SimEngineOptions {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(modelName, "modelName");
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(faults, "faults");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (!(timeScale > 0) || timeScale > MAX_TIME_SCALE) {
            throw new IllegalArgumentException("time scale must be above 0 and at most " + (long) MAX_TIME_SCALE);
        }
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(disaggregation, "disaggregation");
        Objects.requireNonNull(tokenizer, "tokenizer");
        if (bootstrapPort < 0 || bootstrapPort > 65_535) {
            throw new IllegalArgumentException("bootstrap port out of range: " + bootstrapPort);
        }
        if (dpSize < 1) {
            throw new IllegalArgumentException("dp size must be at least 1");
        }
        if (dpSize > 1 && mode.disaggregated()) {
            throw new IllegalArgumentException("a " + mode.flag() + " engine runs one rank: data-parallel ranks are "
                + "simulated without disaggregation only");
        }
        Objects.requireNonNull(kvEvents, "kvEvents");
        if (kvEvents.enabled() && mode == DisaggregationMode.DECODE) {
            throw new IllegalArgumentException("a decode engine publishes no KV events: it is handed each prompt's "
                + "KV, and a router places prompts by what the prefill engines hold");
        }
    }

    /** An engine serving whole requests on one rank, as before disaggregation and data parallelism. */
    public SimEngineOptions(String host, int port, String modelName, double timeScale, EngineConfig engine,
                            Faults faults, Path requestIdLog) {
        this(host, port, modelName, timeScale, engine, faults, requestIdLog, DisaggregationMode.NONE, 0,
            DisaggregationConfig.DEFAULTS, 1, BuiltInTokenizer.INSTANCE, KvEventsOptions.OFF);
    }

    public static SimEngineOptions defaults() {
        return new SimEngineOptions("127.0.0.1", 0, DEFAULT_MODEL, 1, EngineConfig.DEFAULTS, Faults.NONE,
            null);
    }

    /** These options at {@code scale} times real time: what most tests and the demo change. */
    public SimEngineOptions withTimeScale(double scale) {
        return new SimEngineOptions(host, port, modelName, scale, engine, faults, requestIdLog, mode, bootstrapPort,
            disaggregation, dpSize, tokenizer, kvEvents);
    }

    /** These options with {@code newFaults}, for fault tests. */
    public SimEngineOptions withFaults(Faults newFaults) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, newFaults, requestIdLog, mode,
            bootstrapPort, disaggregation, dpSize, tokenizer, kvEvents);
    }

    /** A prefill or decode engine (bootstrap port 0: any free one) with these roles' settings. */
    public SimEngineOptions withMode(DisaggregationMode newMode, DisaggregationConfig newDisaggregation) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, faults, requestIdLog, newMode, 0,
            newDisaggregation, dpSize, tokenizer, kvEvents);
    }

    /** An engine of {@code ranks} data-parallel ranks. */
    public SimEngineOptions withDpSize(int ranks) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, faults, requestIdLog, mode,
            bootstrapPort, disaggregation, ranks, tokenizer, kvEvents);
    }

    /** These options with prompts tokenized by {@code newTokenizer}. */
    public SimEngineOptions withTokenizer(PromptTokenizer newTokenizer) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, faults, requestIdLog, mode,
            bootstrapPort, disaggregation, dpSize, newTokenizer, kvEvents);
    }

    /** An engine whose ranks publish their KV events as {@code newKvEvents} says. */
    public SimEngineOptions withKvEvents(KvEventsOptions newKvEvents) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, faults, requestIdLog, mode,
            bootstrapPort, disaggregation, dpSize, tokenizer, newKvEvents);
    }
}
