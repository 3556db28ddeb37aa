package dev.homing.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class BenchCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine command = new CommandLine(new BenchCommand());
        command.setOut(new PrintWriter(out));
        command.setErr(new PrintWriter(err));
        return command.execute(args);
    }

    @Test
    void aRunWritesAJsonResultThatParsesAndPrintsATable() throws Exception {
        Path output = dir.resolve("result.json");
        try (SimEngineServer engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000))) {
            int exit = run("--url", engine.url(), "--workload", "generated-shared-prefix", "--gsp-num-groups", "4",
                    "--gsp-prompts-per-group", "4", "--gsp-system-prompt-len", "256", "--gsp-question-len", "32",
                    "--gsp-output-len", "16", "--concurrency", "4", "--engine-urls", engine.url(),
                    "--output", output.toString());

            assertThat(exit).as(err.toString()).isZero();
        }

        JsonNode result = JsonMapper.builder().build().readTree(Files.readString(output));
        assertThat(result.path("requests").path("sent").asLong()).isEqualTo(16);
        assertThat(result.path("requests").path("succeeded").asLong()).isEqualTo(16);
        assertThat(result.path("cacheHitRate").path("fromEngines").isNumber()).isTrue();
        assertThat(result.path("latencyMeasuredFrom").asString()).contains("closed loop");
        assertThat(out.toString()).contains("time to first token", "hit rate (engines)");
    }

    @Test
    void aRateAndAConcurrencyTogetherAreRefused() {
        int exit = run("--url", "http://127.0.0.1:1", "--rate", "5", "--concurrency", "2");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).contains("not both");
    }
}
