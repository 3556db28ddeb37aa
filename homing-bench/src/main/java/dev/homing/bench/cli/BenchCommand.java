package dev.homing.bench.cli;

import dev.homing.bench.live.BenchResult;
import dev.homing.bench.live.Endpoint;
import dev.homing.bench.live.LoadRun;
import dev.homing.bench.live.LoadTarget;
import dev.homing.bench.live.Pacing;
import dev.homing.bench.live.ProgressReporter;
import dev.homing.bench.live.RequestEncoder;
import dev.homing.bench.live.ResultTable;
import dev.homing.bench.live.RunCaps;
import dev.homing.bench.live.RunDescription;
import dev.homing.bench.workload.AzureTrace;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.MtBench;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.bench.workload.Workload;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code homing bench}: drives an OpenAI-compatible or SGLang URL (Homing, one engine, another gateway) with a
 * workload, open loop at a rate or closed loop at a concurrency, within a request cap and a duration cap, and
 * reports latency, throughput, errors by kind and the prefix cache hit rate measured two ways.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Drive an OpenAI-compatible or SGLang server with a workload and measure it.")
public final class BenchCommand implements Callable<Integer> {

    enum Api { openai, sglang }

    enum EndpointName { chat, completions, generate }

    @Spec
    CommandSpec spec;

    @Option(names = "--url", required = true, description = "Server to drive, e.g. http://127.0.0.1:30000.")
    String url;

    @Option(names = "--api", description = "API family: openai (chat by default) or sglang (/generate) "
            + "(default: ${DEFAULT-VALUE}).")
    Api api = Api.openai;

    @Option(names = "--endpoint", description = "chat, completions or generate (default: chat for openai, generate "
            + "for sglang).")
    EndpointName endpoint;

    @Option(names = "--workload", description = "multi-turn, generated-shared-prefix, mooncake, azure or mtbench "
            + "(default: ${DEFAULT-VALUE}).")
    String workload = "multi-turn";

    @Option(names = "--trace", paramLabel = "FILE",
            description = "Trace for mooncake (JSON lines) or azure (CSV); questions for mtbench (question.jsonl).")
    Path trace;

    @Option(names = "--rate", description = "Open loop: conversations started per second, Poisson.")
    Double rate;

    @Option(names = "--concurrency", description = "Closed loop: requests in flight.")
    Integer concurrency;

    @Option(names = "--rate-scale", description = "Trace replay speed-up (2 = twice as fast) (default: "
            + "${DEFAULT-VALUE}).")
    double rateScale = 1;

    @Option(names = "--max-requests", description = "Send at most this many requests (default: ${DEFAULT-VALUE}).")
    long maxRequests = 10_000;

    @Option(names = "--duration", paramLabel = "SECONDS",
            description = "Stop after this long, cancelling requests in flight (default: ${DEFAULT-VALUE}).")
    double durationSeconds = 60;

    @Option(names = "--seed", description = "Seed of the workload (default: ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--model", description = "The model field of requests; empty leaves it out (default: empty).")
    String model = "";

    @Option(names = "--engine-urls", arity = "1..*", split = ",", paramLabel = "URL",
            description = "Engines whose /metrics counters measure the hit rate and each worker's share.")
    List<String> engineUrls = new ArrayList<>();

    @Option(names = "--stream", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Stream answers, which measures time to first token (default: ${DEFAULT-VALUE}).")
    boolean stream = true;

    @Option(names = "--output", paramLabel = "FILE", description = "Write the result as JSON to this file.")
    Path output;

    @Option(names = "--api-key", description = "Bearer token sent with every request (default: none).")
    String apiKey = "";

    @Option(names = "--ignore-eos", description = "Ask for exactly the requested output length (an SGLang and vLLM "
            + "extension field).")
    boolean ignoreEos;

    @Option(names = "--request-timeout", paramLabel = "SECONDS",
            description = "A request fails as a timeout when nothing arrives for this long (default: "
                    + "${DEFAULT-VALUE}).")
    double requestTimeoutSeconds = 300;

    @Option(names = "--max-connections", description = "Connections to open at most (default: the concurrency in "
            + "closed loop, ${DEFAULT-VALUE} in open loop).")
    int maxConnections = 4096;

    @Option(names = "--turns", description = "multi-turn: user turns per conversation (default: ${DEFAULT-VALUE}).")
    int turns = 4;

    @Option(names = "--system-prompts", description = "multi-turn: distinct shared system prompts (default: "
            + "${DEFAULT-VALUE}).")
    int systemPrompts = 8;

    @Option(names = "--system-prompt-tokens", description = "multi-turn: system prompt length (default: "
            + "${DEFAULT-VALUE}).")
    int systemPromptTokens = 2000;

    @Option(names = "--think-seconds", description = "multi-turn, mtbench: mean pause between an answer and the "
            + "next turn (default: ${DEFAULT-VALUE}).")
    double thinkSeconds = 5;

    @Option(names = "--output-tokens", description = "multi-turn, mtbench: answer length asked for (default: "
            + "${DEFAULT-VALUE}).")
    int outputTokens = 200;

    @Option(names = "--gsp-num-groups", description = "generated-shared-prefix: groups (default: ${DEFAULT-VALUE}).")
    int gspGroups = GeneratedSharedPrefix.Shape.DEFAULT.groups();

    @Option(names = "--gsp-prompts-per-group",
            description = "generated-shared-prefix: prompts per group (default: ${DEFAULT-VALUE}).")
    int gspPromptsPerGroup = GeneratedSharedPrefix.Shape.DEFAULT.promptsPerGroup();

    @Option(names = "--gsp-system-prompt-len",
            description = "generated-shared-prefix: system prompt tokens (default: ${DEFAULT-VALUE}).")
    int gspSystemPromptTokens = GeneratedSharedPrefix.Shape.DEFAULT.systemPromptTokens();

    @Option(names = "--gsp-question-len",
            description = "generated-shared-prefix: question tokens (default: ${DEFAULT-VALUE}).")
    int gspQuestionTokens = GeneratedSharedPrefix.Shape.DEFAULT.questionTokens();

    @Option(names = "--gsp-output-len",
            description = "generated-shared-prefix: output tokens (default: ${DEFAULT-VALUE}).")
    int gspOutputTokens = GeneratedSharedPrefix.Shape.DEFAULT.outputTokens();

    /** Runs the command on its own, without the {@code homing} executable (e.g. from the benchmarks jar). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        WorkloadKind name = workloadKind();
        Pacing pacing = pacing(name);
        Duration duration = Duration.ofNanos((long) (durationSeconds * 1e9));
        RunCaps caps = caps(duration);
        Endpoint target = endpoint();
        int connections = pacing instanceof Pacing.ClosedLoop closed ? closed.concurrency() : maxConnections;
        LoadTarget loadTarget = new LoadTarget(url, target, apiKey, connections,
                Duration.ofMillis((long) (requestTimeoutSeconds * 1000)));
        Workload source = workload(name, pacing, duration);
        RunDescription description = new RunDescription(url, target.path(), source.name(),
                pacing instanceof Pacing.OpenLoop ? "open-loop" : "closed-loop", rate == null ? 0 : rate,
                rateScale, concurrency == null ? 0 : concurrency, stream, seed, maxRequests, durationSeconds);
        LoadRun run = new LoadRun(loadTarget, new RequestEncoder(target, model, stream, ignoreEos), pacing, caps,
                engineUrls, description);
        Vertx vertx = Vertx.vertx();
        BenchResult result;
        try {
            result = run.execute(vertx, source,
                    new ProgressReporter(System.err, ProgressReporter.onTerminal()));
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(ResultTable.render(result));
        if (output != null) {
            // Built only when a result is written, not whenever picocli builds the command (e.g. for `homing --help`).
            JsonMapper json = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
            Files.writeString(output, json.writeValueAsString(result));
            out.println("result written to " + output);
        }
        out.flush();
        return 0;
    }

    private WorkloadKind workloadKind() {
        return WorkloadKind.of(workload).orElseThrow(() -> new ParameterException(spec.commandLine(),
                "unknown workload " + workload + " (" + WorkloadKind.flags() + ")"));
    }

    private Pacing pacing(WorkloadKind name) {
        if (rate != null && concurrency != null) {
            throw new ParameterException(spec.commandLine(), "give --rate (open loop) or --concurrency (closed "
                    + "loop), not both");
        }
        if (concurrency != null) {
            if (concurrency <= 0) {
                throw new ParameterException(spec.commandLine(), "--concurrency must be positive");
            }
            return new Pacing.ClosedLoop(concurrency);
        }
        if (name.isTrace()) {
            if (rate != null) {
                throw new ParameterException(spec.commandLine(), "a trace keeps its own arrival times: scale them "
                        + "with --rate-scale instead of --rate");
            }
            return new Pacing.OpenLoop();
        }
        if (rate == null) {
            throw new ParameterException(spec.commandLine(), name + " needs --rate (open loop) or "
                    + "--concurrency (closed loop)");
        }
        if (!(rate > 0) || rate.isInfinite()) {
            throw new ParameterException(spec.commandLine(), "--rate must be positive and finite");
        }
        return new Pacing.OpenLoop();
    }

    private RunCaps caps(Duration duration) {
        if (maxRequests <= 0 || duration.isNegative() || duration.isZero()) {
            throw new ParameterException(spec.commandLine(), "--max-requests and --duration must be positive");
        }
        if (!(rateScale > 0) || Double.isInfinite(rateScale)) {
            throw new ParameterException(spec.commandLine(), "--rate-scale must be positive and finite");
        }
        return new RunCaps(maxRequests, duration);
    }

    private Endpoint endpoint() {
        if (endpoint == null) {
            return api == Api.sglang ? Endpoint.GENERATE : Endpoint.CHAT;
        }
        return Endpoint.valueOf(endpoint.name().toUpperCase(Locale.ROOT));
    }

    private Workload workload(WorkloadKind name, Pacing pacing, Duration duration) {
        // Caps the workload itself, so a generator never makes more conversations than can be sent.
        Limits limits = Limits.of((int) Math.min(Integer.MAX_VALUE, maxRequests), duration);
        // A closed loop ignores start times: generate the conversations all at time 0.
        double startRate = pacing instanceof Pacing.ClosedLoop ? Double.POSITIVE_INFINITY : rate == null ? 0 : rate;
        return switch (name) {
            case MULTI_TURN -> new MultiTurnChat(new MultiTurnChat.Shape(systemPrompts, systemPromptTokens, turns,
                    100, outputTokens, thinkSeconds, startRate, limits, seed));
            case GENERATED_SHARED_PREFIX -> new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(gspGroups,
                    gspPromptsPerGroup, gspSystemPromptTokens, gspQuestionTokens, gspOutputTokens, startRate, true,
                    seed));
            case MOONCAKE -> new MooncakeTrace(traceFile(name), new MooncakeTrace.Options(rateScale, false, seed,
                    limits));
            case AZURE -> new AzureTrace(traceFile(name), new AzureTrace.Options(rateScale, 8, 1024, seed, limits));
            case MTBENCH -> new MtBench(traceFile(name), new MtBench.Options(MtBench.DEFAULT_SYSTEM_PROMPT,
                    outputTokens, thinkSeconds, startRate, seed, limits));
        };
    }

    private Path traceFile(WorkloadKind name) {
        if (trace == null || !Files.isReadable(trace)) {
            throw new ParameterException(spec.commandLine(), name + " needs a readable --trace FILE");
        }
        return trace;
    }
}
