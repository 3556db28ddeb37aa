package dev.homing.bench.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RoundRobinLoadTest {

    @TempDir
    Path dir;

    @Test
    void theColdStepsClientMeasuresTheWarmUpUrlsTheFirstRequestsAndTheEnginesDirectly() throws Exception {
        try (SimEngineServer helper = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
             SimEngineServer measured = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
             SimEngineServer direct = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000))) {
            Path output = dir.resolve("cold.json");
            int exit = new CommandLine(new RoundRobinLoad()).execute("--endpoint", "GENERATE", "--no-stream",
                    "--concurrency", "1", "--warmup-urls", helper.url(), "--warmup-requests", "20",
                    "--warm-figure", "--await-url", measured.url() + "/health", "--urls", measured.url(),
                    "--max-requests", "30", "--direct-urls", direct.url(), "--output", output.toString());

            assertThat(exit).isZero();
            JsonNode result = JsonMapper.builder().build().readTree(Files.readString(output));
            assertThat(result.path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("warm").path("urls").get(0).asString()).isEqualTo(helper.url());
            assertThat(result.path("warm").path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("direct").path("urls").get(0).asString()).isEqualTo(direct.url());
            assertThat(result.path("direct").path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("direct").path("endToEnd").path("p50Ms").asDouble()).isPositive();
        }
    }

    @Test
    void withoutTheColdStepsOptionsThereIsNoWarmOrDirectSection() throws Exception {
        try (SimEngineServer engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000))) {
            Path output = dir.resolve("plain.json");
            int exit = new CommandLine(new RoundRobinLoad()).execute("--endpoint", "GENERATE", "--no-stream",
                    "--concurrency", "1", "--warmup-seconds", "0", "--urls", engine.url(), "--max-requests", "10",
                    "--output", output.toString());

            assertThat(exit).isZero();
            JsonNode result = JsonMapper.builder().build().readTree(Files.readString(output));
            assertThat(result.path("requests").path("succeeded").asLong()).isEqualTo(10);
            assertThat(result.path("warm").isNull()).isTrue();
            assertThat(result.path("direct").isNull()).isTrue();
        }
    }
}
