package dev.homing.bench.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code homing compare}: runs one workload through several policies against the same simulated engines and writes
 * a report (Markdown table, JSON, charts). It is {@code simulate} with a report directory that defaults; comparing
 * live engines over HTTP is not there yet.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Run one workload through several policies against the same simulated engines and write a "
                + "report: Markdown table, JSON and charts.")
public final class CompareCommand implements Callable<Integer> {

    /** Where the report goes without {@code --output}. */
    static final Path DEFAULT_OUTPUT = Path.of("homing-compare");

    @Spec
    CommandSpec spec;

    @Mixin
    SimulationOptions options;

    @Option(names = "--live", description = "Compare against live engines over HTTP (not yet supported).")
    boolean live;

    public static void main(String[] args) {
        System.exit(new CommandLine(new CompareCommand()).execute(args));
    }

    @Override
    public Integer call() {
        if (live) {
            throw new ParameterException(spec.commandLine(), "--live is not supported yet: compare runs simulated "
                    + "engines only");
        }
        return SimulationRun.execute(spec, options, options.output != null ? options.output : DEFAULT_OUTPUT);
    }
}
