package dev.homing.cli;

import dev.homing.config.CommandOptions;
import dev.homing.config.EngineSettings;
import dev.homing.config.Scope;
import dev.homing.gateway.cli.UntilStopped;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code homing sim-engine}: runs one simulated SGLang engine until the process is stopped. Its flags are the
 * settings table's of scope {@link Scope#SIM_ENGINE}; the engine model's defaults are the simulated engine's own
 * ({@code EngineConfig.DEFAULTS}, {@code Faults.NONE}).
 */
@Command(name = "sim-engine", mixinStandardHelpOptions = true, sortOptions = false, abbreviateSynopsis = true,
    usageHelpWidth = 120, modelTransformer = CommandOptions.SimEngine.class,
    description = "Run a simulated SGLang engine: real HTTP API, simulated KV cache, scheduler and GPU timing.")
public final class SimEngineCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    /**
     * The options the parsed command line describes.
     *
     * @throws ParameterException naming each flag whose value no engine can have
     */
    SimEngineOptions options() {
        try {
            return EngineSettings.server(CommandOptions.resolve(spec.commandLine(), Scope.SIM_ENGINE).config());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        SimEngineOptions options = options();
        return UntilStopped.serve(() -> SimEngineServer.start(options),
                server -> System.out.println(listening(options, server)), spec.commandLine().getErr(),
                "homing sim-engine");
    }

    /** The first line: where the engine listens, and its role and ranks (a prefill engine's bound bootstrap port). */
    static String listening(SimEngineOptions options, SimEngineServer server) {
        String line = "simulated SGLang engine listening on " + server.url();
        return switch (options.mode()) {
            case PREFILL -> line + " (disaggregation mode prefill, bootstrap port " + server.bootstrapPort() + ")";
            case DECODE -> line + " (disaggregation mode decode)";
            case NONE -> options.dpSize() > 1 ? line + " (dp size " + options.dpSize() + ")" : line;
        };
    }
}
