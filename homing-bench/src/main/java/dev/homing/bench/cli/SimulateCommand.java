package dev.homing.bench.cli;

import dev.homing.config.CommandOptions;
import dev.homing.config.Settings;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code homing simulate}: replays a workload at simulated time through every policy (or those named) in front of
 * simulated engines, offline, and prints hit rate, TTFT, throughput and load against the cache bounds. Its flags
 * are the settings table's of scope {@code SIMULATE}.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = 120, modelTransformer = CommandOptions.Simulate.class,
        description = "Replay a workload offline, in simulated time, through routing policies in front of "
                + "simulated engines; print hit rate, TTFT, throughput and load against the cache bounds.")
public final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimulateCommand()).execute(args));
    }

    /** What the parsed command line asks to run. */
    SimulationOptions options() {
        return SimulationRun.options(spec);
    }

    @Override
    public Integer call() {
        SimulationOptions options = options();
        return SimulationRun.execute(spec, options, options.config().get(Settings.OUTPUT));
    }
}
