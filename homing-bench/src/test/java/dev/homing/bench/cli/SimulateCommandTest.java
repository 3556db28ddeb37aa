package dev.homing.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.report.ComparisonReport;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.config.Settings;
import dev.homing.core.policy.affinity.AffinitySettings;
import dev.homing.core.policy.PolicyFactory;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class SimulateCommandTest {

    /** A generated-shared-prefix workload of 16 short requests: a run takes milliseconds. */
    private static final String[] TINY = {"--workload", "generated-shared-prefix", "--groups", "4",
        "--prompts-per-group", "4", "--system-prompt-tokens", "256", "--question-tokens", "16", "--output-tokens", "8",
        "--workers", "2"};

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(Object command, String... args) {
        CommandLine commandLine = new CommandLine(command);
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        return commandLine.execute(args);
    }

    private static String[] tinyWith(String... more) {
        String[] args = new String[TINY.length + more.length];
        System.arraycopy(TINY, 0, args, 0, TINY.length);
        System.arraycopy(more, 0, args, TINY.length, more.length);
        return args;
    }

    @Test
    void withoutPolicyFlagEveryPolicyRuns() {
        int exit = run(new SimulateCommand(), TINY);

        assertThat(exit).isZero();
        for (String policy : PolicyFactory.NAMES) {
            assertThat(out.toString()).contains("| " + policy + " |");
        }
    }

    @Test
    void namedPoliciesRunAloneAndTheTableShowsTheBounds() {
        int exit = run(new SimulateCommand(), tinyWith("--policy", "round_robin,cache_aware"));

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("| round_robin |", "| cache_aware |", "infinite-cache oracle")
                .doesNotContain("| random |");
    }

    @Test
    void anUnknownPolicyIsAUsageErrorNamingTheValidOnes() {
        int exit = run(new SimulateCommand(), tinyWith("--policy", "round_robin,fastest"));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("unknown policy 'fastest'", "cache_aware", "power_of_two");
    }

    @Test
    void affinityFlagsReachThePolicySettings() {
        SimulateCommand command = new SimulateCommand();
        new CommandLine(command).parseArgs(tinyWith("--affinity-load-factor", "1.5", "--affinity-window", "128",
                "--affinity-pending-weight", "0.1"));

        assertThat(command.options().policyConfig().affinity())
                .isEqualTo(new AffinitySettings(0.1, 1.5, 0.5, 128, 0.1, 256, 1.0, 0, 2000));
    }

    @Test
    void theGeneratedWorkloadsDefaultsAreThoseOfTheLoadTool() {
        GeneratedSharedPrefix.Shape shape = GeneratedSharedPrefix.Shape.DEFAULT;

        assertThat(List.of(Settings.GROUPS.defaultValue(), Settings.PROMPTS_PER_GROUP.defaultValue(),
                Settings.SYSTEM_PROMPT_TOKENS.defaultValue(), Settings.QUESTION_TOKENS.defaultValue(),
                Settings.OUTPUT_TOKENS.defaultValue())).containsExactly(shape.groups(), shape.promptsPerGroup(),
                shape.systemPromptTokens(), shape.questionTokens(), shape.outputTokens());
    }

    @Test
    void anAffinitySettingOutOfRangeIsAUsageErrorNamingItsFlag() {
        int exit = run(new SimulateCommand(), tinyWith("--affinity-load-factor", "0.5"));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--affinity-load-factor must be >= 1, got 0.5");
    }

    @Test
    void aTraceWorkloadWithoutTraceIsAUsageError() {
        int exit = run(new SimulateCommand(), "--workload", "mooncake");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("needs --trace");
    }

    @Test
    void anUnknownWorkloadIsAUsageErrorNamingTheValidOnes() {
        int exit = run(new SimulateCommand(), "--workload", "sharegpt");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("unknown workload 'sharegpt'", "generated-shared-prefix");
    }

    @Test
    void aMalformedTraceEndsTheRunWithTheLineAtFault() throws IOException {
        Path trace = Files.writeString(dir.resolve("bad.jsonl"), "{\"timestamp\": 0}\n");

        int exit = run(new SimulateCommand(), "--trace", trace.toString(), "--policy", "random");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot run the workload", "line 1");
    }

    @Test
    void simulateWritesTheReportOnlyWhenAskedTo() {
        int exit = run(new SimulateCommand(), tinyWith("--policy", "random", "--output", dir.toString()));

        assertThat(exit).isZero();
        assertThat(dir.resolve(ComparisonReport.MARKDOWN)).exists();
        assertThat(dir.resolve(ComparisonReport.HIT_RATE_CHART)).exists();
    }

    @Test
    void theRequestLogHasALinePerAnsweredRequestOfEveryRunNamedAsInTheTable() throws IOException {
        Path log = dir.resolve("requests.jsonl");

        int exit = run(new SimulateCommand(), tinyWith("--policy", "load_aware_affinity,round_robin",
                "--routing-view", "both", "--request-log", log.toString()));

        assertThat(exit).isZero();
        List<JsonNode> lines = Files.readAllLines(log).stream().map(JSON::readTree).toList();
        Map<String, Long> perRun = lines.stream().collect(Collectors.groupingBy(line -> line.get("run").asString(),
                Collectors.counting()));
        assertThat(perRun).containsOnlyKeys("load_aware_affinity (tree)", "load_aware_affinity (exact)",
                "round_robin (tree)", "round_robin (exact)")
                .allSatisfy((run, count) -> assertThat(count).isEqualTo(16));
        for (String run : perRun.keySet()) {
            assertThat(out.toString()).contains("| " + run + " |");
        }
        long cached = 0;
        for (JsonNode line : lines) {
            assertThat(line.get("promptTokens").asInt()).isPositive();
            assertThat(line.get("cachedTokens").asInt()).isBetween(0, line.get("promptTokens").asInt());
            assertThat(line.get("heldTokens").asInt()).isBetween(0, line.get("promptTokens").asInt());
            assertThat(line.get("ttftMillis").asDouble()).isPositive();
            assertThat(line.get("worker").asString()).startsWith("http://worker-");
            cached += line.get("cachedTokens").asInt();
        }
        assertThat(cached).as("four groups of four share their system prompt").isPositive();
    }

    @Test
    void theRequestLogWithoutTheExactViewLeavesOutWhatOnlyItKnows() throws IOException {
        Path log = dir.resolve("requests.jsonl");

        int exit = run(new SimulateCommand(), tinyWith("--policy", "cache_aware", "--request-log", log.toString()));

        assertThat(exit).isZero();
        assertThat(Files.readAllLines(log)).hasSize(16).allSatisfy(line -> assertThat(line)
                .contains("\"run\":\"cache_aware\"", "\"branch\":").doesNotContain("heldTokens", "PredictedTokens"));
    }

    @Test
    void aRequestLogForSeveralFleetsIsAUsageError() {
        int exit = run(new SimulateCommand(), tinyWith("--fleet", "regular,dp", "--request-log",
                dir.resolve("requests.jsonl").toString()));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--request-log logs the runs of one fleet");
    }

    @Test
    void aRequestLogThatCannotBeWrittenEndsTheRunSayingWhere() {
        Path log = dir.resolve("missing").resolve("requests.jsonl");

        int exit = run(new SimulateCommand(), tinyWith("--policy", "random", "--request-log", log.toString()));

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot write the request log to " + log);
    }

    @Test
    void compareWritesTheReportIntoTheOutputDirectory() {
        Path report = dir.resolve("report");

        int exit = run(new CompareCommand(), tinyWith("--policy", "random,cache_aware", "--output", report.toString()));

        assertThat(exit).isZero();
        assertThat(report.resolve(ComparisonReport.MARKDOWN)).content().contains("| cache_aware |");
        assertThat(report.resolve(ComparisonReport.JSON)).exists();
        assertThat(report.resolve(ComparisonReport.TTFT_CHART)).exists();
        assertThat(report.resolve(ComparisonReport.LOAD_CHART)).exists();
    }

    @Test
    void fleetsAreComparedInOneTableWithTheirInterTokenGaps() {
        int exit = run(new SimulateCommand(), tinyWith("--policy", "cache_aware", "--fleet", "regular,pd,dp,dp-aware",
                "--prefill-workers", "1", "--decode-workers", "1", "--dp-size", "2"));

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("ITL p99 (ms)", "| regular (2 workers) | cache_aware |",
                "| pd (1 prefill + 1 decode) | cache_aware |", "| dp (2 servers x 2 ranks, round robin inside) |",
                "| dp-aware (4 ranks routed to) |", "pooled memory of 400,000 tokens");
    }

    @Test
    void severalGatewaysInFrontOfADataParallelFleetRunInStepAndApart() {
        int exit = run(new SimulateCommand(), tinyWith("--policy", "cache_aware", "--fleet", "dp-aware",
                "--dp-size", "2", "--gateways", "2"));

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("| dp-aware (4 ranks routed to) | cache_aware |",
                "| dp-aware (4 ranks routed to) | cache_aware x2 sync |",
                "| dp-aware (4 ranks routed to) | cache_aware x2 no sync |");
    }

    @Test
    void severalGatewaysInFrontOfAPrefillDecodeFleetAreAUsageErrorSayingSo() {
        int exit = run(new SimulateCommand(), tinyWith("--fleet", "regular,pd", "--gateways", "2"));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--gateways 2 with --fleet pd",
                "several gateways in front of a prefill/decode fleet are not simulated yet");
    }

    @Test
    void anUnknownFleetIsAUsageErrorNamingTheValidOnes() {
        int exit = run(new SimulateCommand(), tinyWith("--fleet", "regular,mesh"));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("unknown fleet 'mesh'", "regular, pd, dp, dp-aware");
    }

    @Test
    void compareWritesTheFleetTableAndEachFleetsReport() {
        Path report = dir.resolve("fleets");

        int exit = run(new CompareCommand(), tinyWith("--policy", "round_robin", "--fleet", "regular,pd",
                "--prefill-workers", "1", "--decode-workers", "1", "--output", report.toString()));

        assertThat(exit).isZero();
        assertThat(report.resolve("fleets.md")).content().contains("| pd (1 prefill + 1 decode) | round_robin |");
        assertThat(report.resolve("fleets.json")).content().contains("\"interTokenP99Millis\"");
        assertThat(report.resolve("pd").resolve(ComparisonReport.MARKDOWN)).content()
                .contains("pd fleet: 1 prefill + 1 decode");
        assertThat(report.resolve("regular").resolve(ComparisonReport.JSON)).exists();
    }

    @Test
    void compareAgainstLiveEnginesSaysItIsNotThereYet() {
        int exit = run(new CompareCommand(), tinyWith("--live"));

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("--live is not supported yet");
    }
}
