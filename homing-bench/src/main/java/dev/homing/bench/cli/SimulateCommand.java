package dev.homing.bench.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code homing simulate}: replays a workload at simulated time through every policy (or those named) in front of
 * simulated engines, offline, and prints hit rate, TTFT, throughput and load against the cache bounds.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Replay a workload offline, in simulated time, through routing policies in front of "
                + "simulated engines; print hit rate, TTFT, throughput and load against the cache bounds.")
public final class SimulateCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SimulationOptions options;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SimulateCommand()).execute(args));
    }

    @Override
    public Integer call() {
        return SimulationRun.execute(spec, options, options.output);
    }
}
