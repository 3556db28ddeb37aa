package dev.homing.sim.http;

import dev.homing.sim.model.EngineConfig;
import java.nio.file.Path;
import java.util.Objects;

/**
 * How to run one simulated engine over HTTP. {@link #defaults()} listens on 127.0.0.1 on an ephemeral port, in
 * real time, with the engine model's defaults and no faults; {@code homing sim-engine} builds one from its flags (the
 * settings table, which takes these defaults but for the port).
 *
 * @param host      address to listen on
 * @param port      port to listen on; 0 picks a free one (see {@link SimEngineServer#port()})
 * @param modelName the model id served in {@code /v1/models} and answers
 * @param timeScale how many times faster than real time the engine runs (1 is real time; tests use 100 or more)
 * @param engine    the engine model: KV cache, scheduler, timing
 * @param faults    injected faults
 * @param requestIdLog file to append the {@code x-request-id} of each fully answered request to, or null for none
 */
public record SimEngineOptions(
    String host,
    int port,
    String modelName,
    double timeScale,
    EngineConfig engine,
    Faults faults,
    Path requestIdLog) {

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
    }

    public static SimEngineOptions defaults() {
        return new SimEngineOptions("127.0.0.1", 0, DEFAULT_MODEL, 1, EngineConfig.DEFAULTS, Faults.NONE,
            null);
    }

    /** These options at {@code scale} times real time: what most tests and the demo change. */
    public SimEngineOptions withTimeScale(double scale) {
        return new SimEngineOptions(host, port, modelName, scale, engine, faults, requestIdLog);
    }

    /** These options with {@code newFaults}, for fault tests. */
    public SimEngineOptions withFaults(Faults newFaults) {
        return new SimEngineOptions(host, port, modelName, timeScale, engine, newFaults, requestIdLog);
    }
}
