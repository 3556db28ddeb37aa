package dev.homing.sim;

import dev.homing.sim.http.Faults;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.sim.model.EngineConfig;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code homing sim-engine}: runs one simulated SGLang engine until the process is stopped. Every default comes from
 * {@link EngineConfig#DEFAULTS} (see {@link EngineFlags}) and {@link Faults#NONE}.
 */
@Command(name = "sim-engine", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Run a simulated SGLang engine: real HTTP API, simulated KV cache, scheduler and GPU timing.")
public final class SimEngineCommand implements Callable<Integer> {
    private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;
    private static final Faults FAULTS = Faults.NONE;

    @Mixin
    EngineFlags engineFlags = new EngineFlags();

    @Spec
    CommandSpec spec;

    @Option(names = "--host", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
    String host = "127.0.0.1";

    @Option(names = "--port", description = "Port to listen on, 0 for any free port (default: ${DEFAULT-VALUE}).")
    int port = 30_000;

    @Option(names = {"--model-name", "--served-model-name"},
        description = "Model id served and echoed (default: ${DEFAULT-VALUE}).")
    String modelName = SimEngineOptions.DEFAULT_MODEL;

    @Option(names = "--time-scale",
        description = "Run this many times faster than real time (default: ${DEFAULT-VALUE}).")
    double timeScale = 1;











    @Option(names = "--seed", description = "Seed of the output words and the fault dice (default: ${DEFAULT-VALUE}).")
    long seed = ENGINE.seed();

    @Option(names = "--fail-rate",
        description = "Share of inference requests that fail at once (default: ${DEFAULT-VALUE}).")
    double failRate = FAULTS.failRate();

    @Option(names = "--fail-status", description = "HTTP status of those failures (default: ${DEFAULT-VALUE}).")
    int failStatus = FAULTS.failStatus();

    @Option(names = "--stall-after-tokens",
        description = "Stop sending after this many output tokens, keeping the connection open (0: off).")
    int stallAfterTokens = FAULTS.stallAfterTokens();

    @Option(names = "--reset-after-tokens",
        description = "Close the connection after this many output tokens (0: off).")
    int resetAfterTokens = FAULTS.resetAfterTokens();

    @Option(names = "--die-after-requests",
        description = "Stop listening after this many inference requests (0: off).")
    int dieAfterRequests = FAULTS.dieAfterRequests();

    @Option(names = "--slow-health-ms", description = "Delay health answers by this much (0: off).")
    long slowHealthMillis = FAULTS.slowHealthMillis();

    @Option(names = "--record-request-ids", paramLabel = "FILE",
        description = "Append the x-request-id of each fully answered request to FILE, one a line (default: off).")
    Path recordRequestIds;

    /** The options these flags describe. */
    public SimEngineOptions options() {
        EngineConfig engine = engineFlags.config(seed);
        Faults faults = new Faults(failRate, failStatus, stallAfterTokens, resetAfterTokens, dieAfterRequests,
            slowHealthMillis, seed);
        return new SimEngineOptions(host, port, modelName, timeScale, engine, faults, recordRequestIds);
    }

    @Override
    public Integer call() throws InterruptedException {
        SimEngineOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        SimEngineServer server;
        try {
            server = SimEngineServer.start(options);
        } catch (IllegalStateException e) {
            // A port in use or the like: a sentence, as the gateway gives, not a stack trace.
            spec.commandLine().getErr().println("homing sim-engine: cannot start: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "sim-engine-shutdown"));
        System.out.println("simulated SGLang engine listening on " + server.url());
        stopped.await();
        return 0;
    }
}
