package dev.homing.bench.cli;

import dev.homing.bench.simulate.FleetShape;
import dev.homing.bench.simulate.RequestShape;
import dev.homing.bench.simulate.SimulationSettings;
import dev.homing.bench.workload.AzureTrace;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.MtBench;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.bench.workload.Workload;
import dev.homing.config.Config;
import dev.homing.config.PolicySettings;
import dev.homing.config.Settings;
import dev.homing.core.policy.PolicyConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What {@code homing simulate} and {@code homing compare} were asked to run: the workload, the engines, the
 * policies and their settings, read from the settings table's values of scope {@code SIMULATE} (the gateway's flag
 * names for the policies, the simulated engine's for the engines).
 *
 * @param config the command line's values, checked
 */
record SimulationOptions(Config config) {

    /** The workload chosen, with its default when {@code --workload} is absent. */
    WorkloadKind workloadKind() {
        String workload = config.get(Settings.WORKLOAD);
        if (workload != null) {
            return WorkloadKind.of(workload.trim().toLowerCase(Locale.ROOT)).orElseThrow(() ->
                    new IllegalArgumentException("unknown workload '" + workload + "'; valid workloads: " + WorkloadKind.flags()));
        }
        return config.get(Settings.TRACE) != null ? WorkloadKind.MOONCAKE : WorkloadKind.GENERATED_SHARED_PREFIX;
    }

    /** How the workload's requests are sent: trace text as completions, everything else as chat. */
    RequestShape shape() {
        return workloadKind() == WorkloadKind.MOONCAKE ? RequestShape.COMPLETION : RequestShape.CHAT;
    }

    /** The policies to run (the table checked each name). */
    List<String> policies() {
        return config.get(Settings.POLICIES);
    }

    PolicyConfig policyConfig() {
        return PolicySettings.of(config, config.get(Settings.SIMULATION_SEED));
    }

    SimulationSettings settings() {
        return SimulationSettings.of(config);
    }

    /** Whether the run compares fleets ({@code --fleet} other than the regular fleet alone). */
    boolean comparesFleets() {
        return !config.get(Settings.FLEETS).equals(List.of(FleetShape.Kind.REGULAR.flag()));
    }

    /**
     * The settings of each fleet {@code --fleet} names, in its order.
     *
     * @throws IllegalArgumentException for an unknown fleet, naming the valid ones
     */
    List<SimulationSettings> fleetSettings() {
        SimulationSettings settings = settings();
        return config.get(Settings.FLEETS).stream()
                .map(flag -> settings.withFleet(settings.fleet().withKind(FleetShape.Kind.parse(flag)))).toList();
    }

    /**
     * The workload these flags describe.
     *
     * @throws IllegalArgumentException when a trace workload has no readable {@code --trace}, or a value is invalid
     */
    Workload workload() {
        WorkloadKind kind = workloadKind();
        Limits limits = limits(kind);
        long seed = config.get(Settings.SIMULATION_SEED);
        double rateScale = config.get(Settings.RATE_SCALE);
        return switch (kind) {
            case MOONCAKE -> new MooncakeTrace(traceFile(kind),
                    new MooncakeTrace.Options(rateScale, config.get(Settings.SPREAD_BUCKETS), seed, limits));
            case AZURE -> new AzureTrace(traceFile(kind), new AzureTrace.Options(rateScale, 8, 1024, seed, limits));
            case MTBENCH -> {
                MtBench.Options defaults = MtBench.Options.defaults(rate(1.0), seed);
                yield new MtBench(traceFile(kind), new MtBench.Options(defaults.systemPrompt(),
                        defaults.answerTokens(), defaults.meanThinkSeconds(), defaults.ratePerSecond(), seed, limits));
            }
            case MULTI_TURN -> new MultiTurnChat(MultiTurnChat.Shape.typical(rate(2.0), limits, seed));
            case GENERATED_SHARED_PREFIX -> new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(
                    config.get(Settings.GROUPS), config.get(Settings.PROMPTS_PER_GROUP),
                    config.get(Settings.SYSTEM_PROMPT_TOKENS), config.get(Settings.QUESTION_TOKENS),
                    config.get(Settings.OUTPUT_TOKENS), rate(Double.POSITIVE_INFINITY), true, seed));
        };
    }

    private double rate(double fallback) {
        Double rate = config.get(Settings.REQUEST_RATE);
        return rate == null ? fallback : rate;
    }

    private Limits limits(WorkloadKind kind) {
        Integer requests = config.get(Settings.REQUESTS);
        Long durationSecs = config.get(Settings.DURATION_SECS);
        int count = requests != null ? requests : kind == WorkloadKind.MULTI_TURN ? 200 : Integer.MAX_VALUE;
        long startMicros = durationSecs == null ? Long.MAX_VALUE : TimeUnit.SECONDS.toMicros(durationSecs);
        return new Limits(count, startMicros);
    }

    private Path traceFile(WorkloadKind kind) {
        Path trace = config.get(Settings.TRACE);
        if (trace == null) {
            throw new IllegalArgumentException("--workload " + kind + " needs --trace FILE");
        }
        if (!Files.isReadable(trace)) {
            throw new IllegalArgumentException("cannot read trace file " + trace);
        }
        return trace;
    }
}
