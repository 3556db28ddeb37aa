package dev.homing.bench.cli;

import dev.homing.bench.simulate.RequestShape;
import dev.homing.bench.simulate.SimulationSettings;
import dev.homing.bench.workload.AzureTrace;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.MtBench;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.bench.workload.Workload;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.gateway.cli.AffinityFlags;
import dev.homing.sim.EngineFlags;
import dev.homing.sim.model.EngineConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The flags {@code homing simulate} and {@code homing compare} share: the workload, the engines, the policies and
 * their settings (with the gateway's flag names). Defaults come from {@link EngineConfig#DEFAULTS},
 * {@link PolicyConfig#DEFAULTS} and {@link SimulationSettings#defaults}, so help text and behaviour cannot drift.
 */
public final class SimulationOptions {

    private static final PolicyConfig POLICY = PolicyConfig.DEFAULTS;
    private static final GeneratedSharedPrefix.Shape GSP = GeneratedSharedPrefix.Shape.DEFAULT;

    /** The workloads {@code --workload} accepts. */
    public enum WorkloadKind {
        MOONCAKE("mooncake"), GENERATED_SHARED_PREFIX("generated-shared-prefix"), MULTI_TURN("multi-turn"),
        AZURE("azure"), MTBENCH("mtbench");

        private final String flag;

        WorkloadKind(String flag) {
            this.flag = flag;
        }

        @Override
        public String toString() {
            return flag;
        }

        static WorkloadKind parse(String value) {
            for (WorkloadKind kind : values()) {
                if (kind.flag.equals(value.trim().toLowerCase(Locale.ROOT))) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown workload '" + value + "'; valid workloads: "
                    + "mooncake, generated-shared-prefix, multi-turn, azure, mtbench");
        }
    }

    // Workload
    @Option(names = "--workload", paramLabel = "NAME", description = "mooncake, generated-shared-prefix, multi-turn, "
            + "azure or mtbench (default: mooncake with --trace, generated-shared-prefix without).")
    String workload;

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Trace file: Mooncake JSONL, Azure CSV or MT-Bench question.jsonl.")
    Path trace;

    @Option(names = "--rate-scale", paramLabel = "X",
            description = "Replay a trace X times faster than recorded (default: ${DEFAULT-VALUE}).")
    double rateScale = 1.0;

    @Option(names = "--spread-buckets", negatable = true, fallbackValue = "true",
            description = "Spread the Mooncake trace's requests evenly over its 3 s timestamp buckets instead of "
                    + "sending each bucket at once (default: ${DEFAULT-VALUE}).")
    boolean spreadBuckets = true;

    @Option(names = "--requests", paramLabel = "N",
            description = "Send at most N conversations (default: the whole trace; 200 for multi-turn).")
    Integer requests;

    @Option(names = "--duration-secs", paramLabel = "S", description = "Start no conversation after S seconds.")
    Long durationSecs;

    @Option(names = "--request-rate", paramLabel = "R", description = "Conversations started per second for "
            + "generated workloads (default: all at once for generated-shared-prefix, 2 for multi-turn, "
            + "1 for mtbench).")
    Double requestRate;

    @Option(names = "--groups", description = "generated-shared-prefix: groups (default: ${DEFAULT-VALUE}).")
    int groups = GSP.groups();

    @Option(names = "--prompts-per-group",
            description = "generated-shared-prefix: prompts per group (default: ${DEFAULT-VALUE}).")
    int promptsPerGroup = GSP.promptsPerGroup();

    @Option(names = "--system-prompt-tokens",
            description = "generated-shared-prefix: shared prompt length (default: ${DEFAULT-VALUE}).")
    int systemPromptTokens = GSP.systemPromptTokens();

    @Option(names = "--question-tokens",
            description = "generated-shared-prefix: question length (default: ${DEFAULT-VALUE}).")
    int questionTokens = GSP.questionTokens();

    @Option(names = "--output-tokens",
            description = "generated-shared-prefix: answer length (default: ${DEFAULT-VALUE}).")
    int outputTokens = GSP.outputTokens();

    @Option(names = "--seed", description = "Seeds the workload, the policies and the engines' answers "
            + "(default: ${DEFAULT-VALUE}).")
    long seed = 1;

    // Fleet and engines
    @Option(names = "--workers", description = "Simulated engines (default: ${DEFAULT-VALUE}).")
    int workers = 8;

    @Mixin
    EngineFlags engineFlags = new EngineFlags();











    // Policies, with the gateway's names
    @Option(names = "--policy", split = ",", paramLabel = "NAME",
            description = "Policies to run, comma-separated (default: all of them).")
    List<String> policies = PolicyFactory.NAMES;

    @Option(names = "--cache-threshold", description = "cache_aware: a match ratio above this routes to the match "
            + "(default: ${DEFAULT-VALUE}).")
    double cacheThreshold = POLICY.cacheThreshold();

    @Option(names = "--balance-abs-threshold", description = "cache_aware, bucket: imbalance needs max - min load "
            + "above this (default: ${DEFAULT-VALUE}).")
    int balanceAbsThreshold = POLICY.balanceAbsThreshold();

    @Option(names = "--balance-rel-threshold", description = "cache_aware, bucket: ...and max above min times this "
            + "(default: ${DEFAULT-VALUE}).")
    double balanceRelThreshold = POLICY.balanceRelThreshold();

    @Option(names = "--max-tree-size", description = "cache_aware: characters the prefix tree may hold "
            + "(default: ${DEFAULT-VALUE}).")
    long maxTreeSize = POLICY.maxTreeSize();

    @Option(names = "--max-idle-secs", description = "manual: forget a routing key idle this long "
            + "(default: ${DEFAULT-VALUE}).")
    long maxIdleSecs = POLICY.maxIdleSecs();

    @Option(names = "--assignment-mode", description = "manual: how a new routing key is placed: random, min_load "
            + "or min_group (default: random).")
    String assignmentMode = POLICY.assignmentMode().flag();

    @Option(names = "--prefix-token-count", description = "prefix_hash: tokens' worth of text hashed "
            + "(default: ${DEFAULT-VALUE}).")
    int prefixTokenCount = POLICY.prefixTokenCount();

    @Option(names = "--prefix-hash-load-factor", description = "prefix_hash: skip a worker loaded beyond this "
            + "multiple of the mean (default: ${DEFAULT-VALUE}).")
    double prefixHashLoadFactor = POLICY.prefixHashLoadFactor();

    @Option(names = "--bucket-adjust-interval-secs", description = "bucket: seconds between boundary updates "
            + "(default: ${DEFAULT-VALUE}).")
    int bucketAdjustIntervalSecs = POLICY.bucketAdjustIntervalSecs();

    @Mixin
    AffinityFlags affinity = new AffinityFlags();

    @Option(names = "--eviction-interval-secs",
            description = "Simulated seconds between policy maintenance runs (default: ${DEFAULT-VALUE}).")
    long evictionIntervalSecs = TimeUnit.NANOSECONDS.toSeconds(SimulationSettings.MAINTAIN_INTERVAL_NANOS);

    // Simulated gateway
    @Option(names = "--load-sample-interval-secs", description = "Simulated seconds between samples of each "
            + "engine's load (KV tokens in use), which power_of_two reads; 0 never samples "
            + "(default: ${DEFAULT-VALUE}).")
    double loadSampleIntervalSecs = SimulationSettings.LOAD_SAMPLE_INTERVAL_NANOS / 1e9;

    @Option(names = "--routing-key", negatable = true, fallbackValue = "true", description = "Send each "
            + "conversation's id as X-SMG-Routing-Key, read by manual and consistent_hashing "
            + "(default: ${DEFAULT-VALUE}).")
    boolean routingKey = true;

    @Option(names = "--output", paramLabel = "DIR", description = "Write the report (Markdown, JSON, SVG) here.")
    Path output;

    /** The workload chosen, with its default when {@code --workload} is absent. */
    WorkloadKind workloadKind() {
        if (workload != null) {
            return WorkloadKind.parse(workload);
        }
        return trace != null ? WorkloadKind.MOONCAKE : WorkloadKind.GENERATED_SHARED_PREFIX;
    }

    /** How the workload's requests are sent: trace text as completions, everything else as chat. */
    RequestShape shape() {
        return workloadKind() == WorkloadKind.MOONCAKE ? RequestShape.COMPLETION : RequestShape.CHAT;
    }

    /**
     * The policies to run, each checked by the policy factory itself.
     *
     * @throws IllegalArgumentException for an unknown name, naming the valid ones
     */
    List<String> policies() {
        List<String> names = policies.stream().map(String::trim).filter(name -> !name.isEmpty()).toList();
        if (names.isEmpty()) {
            throw new IllegalArgumentException("--policy names no policy");
        }
        for (String name : names) {
            PolicyFactory.create(name, policyConfig(), () -> 0);
        }
        return names;
    }

    PolicyConfig policyConfig() {
        return new PolicyConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, maxTreeSize, maxIdleSecs,
                PolicyConfig.AssignmentMode.parse(assignmentMode), prefixTokenCount, prefixHashLoadFactor,
                bucketAdjustIntervalSecs, seed, affinity.settings());
    }

    SimulationSettings settings() {
        EngineConfig engine = engineFlags.config(seed);
        if (!(loadSampleIntervalSecs >= 0) || !(evictionIntervalSecs > 0)) {
            throw new IllegalArgumentException("--load-sample-interval-secs must be >= 0 and "
                    + "--eviction-interval-secs > 0");
        }
        return new SimulationSettings(workers, engine, policyConfig(), TimeUnit.SECONDS.toNanos(evictionIntervalSecs),
                (long) (loadSampleIntervalSecs * 1e9), routingKey);
    }

    /**
     * The workload these flags describe.
     *
     * @throws IllegalArgumentException when a trace workload has no readable {@code --trace}, or a value is invalid
     */
    Workload workload() {
        WorkloadKind kind = workloadKind();
        Limits limits = limits(kind);
        return switch (kind) {
            case MOONCAKE -> new MooncakeTrace(traceFile(kind),
                    new MooncakeTrace.Options(rateScale, spreadBuckets, seed, limits));
            case AZURE -> new AzureTrace(traceFile(kind), new AzureTrace.Options(rateScale, 8, 1024, seed, limits));
            case MTBENCH -> {
                MtBench.Options defaults = MtBench.Options.defaults(rate(1.0), seed);
                yield new MtBench(traceFile(kind), new MtBench.Options(defaults.systemPrompt(),
                        defaults.answerTokens(), defaults.meanThinkSeconds(), defaults.ratePerSecond(), seed, limits));
            }
            case MULTI_TURN -> new MultiTurnChat(MultiTurnChat.Shape.typical(rate(2.0), limits, seed));
            case GENERATED_SHARED_PREFIX -> new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(groups,
                    promptsPerGroup, systemPromptTokens, questionTokens, outputTokens,
                    rate(Double.POSITIVE_INFINITY), true, seed));
        };
    }

    private double rate(double fallback) {
        return requestRate == null ? fallback : requestRate;
    }

    private Limits limits(WorkloadKind kind) {
        int count = requests != null ? requests : kind == WorkloadKind.MULTI_TURN ? 200 : Integer.MAX_VALUE;
        long startMicros = durationSecs == null ? Long.MAX_VALUE : TimeUnit.SECONDS.toMicros(durationSecs);
        return new Limits(count, startMicros);
    }

    private Path traceFile(WorkloadKind kind) {
        if (trace == null) {
            throw new IllegalArgumentException("--workload " + kind + " needs --trace FILE");
        }
        if (!Files.isReadable(trace)) {
            throw new IllegalArgumentException("cannot read trace file " + trace);
        }
        return trace;
    }
}
