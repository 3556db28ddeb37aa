package dev.homing.bench.cli;

import dev.homing.bench.report.Comparison;
import dev.homing.bench.report.ComparisonReport;
import dev.homing.bench.report.MarkdownTable;
import dev.homing.bench.simulate.FleetComparison;
import dev.homing.bench.simulate.FleetShape;
import dev.homing.bench.simulate.PolicyComparison;
import dev.homing.bench.simulate.RequestLog;
import dev.homing.bench.simulate.RequestShape;
import dev.homing.bench.simulate.SimulationResult;
import dev.homing.bench.simulate.SimulationSettings;
import dev.homing.bench.workload.Workload;
import dev.homing.config.CommandOptions;
import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What {@code simulate} and {@code compare} both do: check the flags, run every policy, print the table, and write the
 * report when there is a directory for it. One code path, so the two commands cannot disagree.
 */
final class SimulationRun {

    private SimulationRun() {
    }

    /**
     * What a parsed {@code simulate} or {@code compare} command line asks to run.
     *
     * @throws ParameterException naming each flag whose value is refused
     */
    static SimulationOptions options(CommandSpec spec) {
        Config config = CommandOptions.resolve(spec.commandLine(), Scope.SIMULATE).config();
        if (config.get(Settings.LIVE)) {
            throw new ParameterException(spec.commandLine(), Settings.LIVE.flag() + " is not supported yet: "
                    + spec.name() + " runs simulated engines only");
        }
        if (config.get(Settings.GATEWAYS) > 1 && config.get(Settings.FLEETS).stream()
                .anyMatch(fleet -> fleet.trim().equals(FleetShape.Kind.DISAGGREGATED.flag()))) {
            throw new ParameterException(spec.commandLine(), Settings.GATEWAYS.flag() + " "
                    + config.get(Settings.GATEWAYS) + " with " + Settings.FLEETS.flag() + " "
                    + FleetShape.Kind.DISAGGREGATED.flag() + ": " + SimulationSettings.MANY_GATEWAYS_PD);
        }
        SimulationOptions options = new SimulationOptions(config);
        if (config.get(Settings.REQUEST_LOG) != null && options.comparesFleets()) {
            throw new ParameterException(spec.commandLine(), Settings.REQUEST_LOG.flag() + " logs the runs of one "
                    + "fleet: run each " + Settings.FLEETS.flag() + " on its own");
        }
        return options;
    }

    /** @param output the report directory, or null to print the table only */
    static int execute(CommandSpec spec, SimulationOptions options, Path output) {
        SimulationSettings settings;
        List<SimulationSettings> fleets;
        Workload workload;
        RequestShape shape;
        List<String> policies;
        try {
            settings = options.settings();
            fleets = options.fleetSettings();
            workload = options.workload();
            shape = options.shape();
            policies = options.policies();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
        if (options.comparesFleets()) {
            return fleets(err, out, fleets, workload, shape, policies, output);
        }
        err.printf(Locale.ROOT, "%s: %d workers, %,d KV tokens each, policies %s%n", workload.name(),
                settings.workers(), settings.engine().kvTokens(), String.join(",", policies));
        err.flush();
        PolicyComparison runs;
        Path requestLog = options.config().get(Settings.REQUEST_LOG);
        try (RequestLog log = requestLog == null ? RequestLog.NONE : RequestLog.open(requestLog)) {
            runs = PolicyComparison.run(settings, shape, workload, policies, result -> progress(err, result.policy(),
                    result), log);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            return workloadFailed(err, e);
        } catch (IOException e) {
            err.println("cannot write the request log to " + requestLog + ": " + e);
            err.flush();
            return 1;
        }
        Comparison comparison = runs.report();
        // The terminal gets the page without its chart links; the charts exist only in the report directory.
        String page = ComparisonReport.markdown(comparison);
        int charts = page.indexOf("\n![");
        out.println((charts < 0 ? page : page.substring(0, charts)).strip());
        if (output != null) {
            try {
                ComparisonReport.write(comparison, output);
            } catch (IOException e) {
                return reportFailed(err, out, output, e);
            }
            out.println("Report written to " + output);
        }
        out.flush();
        return 0;
    }

    /** Every policy on every fleet: progress lines, the fleet table, and each fleet's report in the directory. */
    private static int fleets(PrintWriter err, PrintWriter out, List<SimulationSettings> fleets, Workload workload,
                              RequestShape shape, List<String> policies, Path output) {
        err.printf(Locale.ROOT, "%s: fleets %s, %,d KV tokens an engine, policies %s%n", workload.name(),
                fleets.stream().map(SimulationSettings::fleetDescription).collect(Collectors.joining("; ")),
                fleets.getFirst().engine().kvTokens(), String.join(",", policies));
        err.flush();
        FleetComparison runs;
        try {
            runs = FleetComparison.run(fleets, shape, workload, policies, (fleet, result) -> progress(err,
                    fleet.fleet().kind().flag() + " " + result.policy(), result));
        } catch (IllegalArgumentException | UncheckedIOException e) {
            return workloadFailed(err, e);
        }
        out.println(runs.markdown().strip());
        if (output != null) {
            try {
                runs.write(output);
            } catch (IOException e) {
                return reportFailed(err, out, output, e);
            }
            out.println("Report written to " + output);
        }
        out.flush();
        return 0;
    }

    /** One run's line: its hit rate against the bounds, its cost, its branches and holds. */
    private static void progress(PrintWriter err, String label, SimulationResult result) {
        err.printf(Locale.ROOT, "  %-18s %,d requests, hit rate %s (oracle %s, pooled %s), "
                        + "%.1f s wall; branches %s%n", label, result.requests(),
                MarkdownTable.percent(result.hitRate()), MarkdownTable.percent(result.bounds().oracle().tokenRate()),
                MarkdownTable.percent(result.bounds().pooled().tokenRate()), result.wallNanos() / 1e9,
                new TreeMap<>(result.branches()));
        if (result.busDecisionEvents() > 0) {
            err.printf(Locale.ROOT, "  %-18s bus: %,.0f bytes a routed request (%,d events, %,d bytes)%n", "",
                    (double) result.busBytes() / Math.max(1, result.requests()), result.busDecisionEvents(),
                    result.busBytes());
        }
        if (result.lateJoin() != null) {
            SimulationResult.LateJoin late = result.lateJoin();
            err.printf(Locale.ROOT, "  %-18s the late replica's hit rate %.1f%% in its first 10 s (the others "
                            + "%.1f%%), %.1f%% after (the others %.1f%%)%n", "", 100 * late.lateFirst(),
                    100 * late.othersFirst(), 100 * late.lateAfter(), 100 * late.othersAfter());
        }
        if (result.held() > 0) {
            err.printf(Locale.ROOT, "  %-18s %,d requests held for an earlier prefill of their prefix, %,d "
                    + "of them until the wait ran out%n", "", result.held(), result.heldUntilTimeout());
        }
        err.flush();
    }

    /** The workload is read while it runs: a malformed or unreadable trace shows up only here. */
    private static int workloadFailed(PrintWriter err, RuntimeException e) {
        err.println("cannot run the workload: " + e.getMessage());
        err.flush();
        return 1;
    }

    private static int reportFailed(PrintWriter err, PrintWriter out, Path output, IOException e) {
        err.println("cannot write the report to " + output + ": " + e);
        err.flush();
        out.flush();
        return 1;
    }
}
