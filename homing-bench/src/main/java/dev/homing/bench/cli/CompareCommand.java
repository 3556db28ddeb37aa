package dev.homing.bench.cli;

import dev.homing.config.CommandOptions;
import dev.homing.config.Settings;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code homing compare}: runs one workload through several policies against the same simulated engines and writes
 * a report (Markdown table, JSON, charts). It is {@code simulate} with a report directory that defaults; comparing
 * live engines over HTTP is not there yet.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false, abbreviateSynopsis = true,
        usageHelpWidth = 120, modelTransformer = CommandOptions.Simulate.class,
        description = "Run one workload through several policies against the same simulated engines and write a "
                + "report: Markdown table, JSON and charts.")
public final class CompareCommand implements Callable<Integer> {

    /** Where the report goes without {@code --output}. */
    static final Path DEFAULT_OUTPUT = Path.of("homing-compare");

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CompareCommand()).execute(args));
    }

    @Override
    public Integer call() {
        SimulationOptions options = SimulationRun.options(spec);
        Path output = options.config().get(Settings.OUTPUT);
        return SimulationRun.execute(spec, options, output != null ? output : DEFAULT_OUTPUT);
    }
}
