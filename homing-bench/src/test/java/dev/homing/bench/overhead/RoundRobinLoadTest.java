package dev.homing.bench.overhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class RoundRobinLoadTest {

    @TempDir
    Path dir;

    /** Three engines standing in for the cold step's helper proxy, measured proxy and engine. */
    private record ColdStep(SimEngineServer helper, SimEngineServer measured, SimEngineServer direct) {

        /**
         * Runs the cold step's client against them (20 warm-up requests, 30 measured), with {@code extra} flags; the
         * file it waits for is there from the start.
         */
        JsonNode run(Path output, String... extra) throws Exception {
            Path ready = Files.createTempFile(output.getParent(), "ready", ".go");
            List<String> args = new ArrayList<>(List.of("--endpoint", "GENERATE", "--no-stream", "--concurrency", "1",
                    "--warmup-urls", helper.url(), "--warmup-requests", "20", "--warm-figure",
                    "--await-file", ready.toString(), "--urls", measured.url(), "--max-requests", "30",
                    "--direct-urls", direct.url(), "--output", output.toString()));
            args.addAll(List.of(extra));
            assertThat(new CommandLine(new RoundRobinLoad()).execute(args.toArray(String[]::new))).isZero();
            return JsonMapper.builder().build().readTree(Files.readString(output));
        }
    }

    private static void withColdStep(ThrowingConsumer<ColdStep> test) throws Throwable {
        try (SimEngineServer helper = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
             SimEngineServer measured = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
             SimEngineServer direct = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000))) {
            test.accept(new ColdStep(helper, measured, direct));
        }
    }

    @Test
    void theColdStepsClientMeasuresTheWarmUpUrlsTheFirstRequestsAndTheEnginesDirectly() throws Throwable {
        withColdStep(step -> {
            JsonNode result = step.run(dir.resolve("cold.json"));

            assertThat(result.path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("warm").path("urls").get(0).asString()).isEqualTo(step.helper().url());
            assertThat(result.path("warm").path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("direct").path("urls").get(0).asString()).isEqualTo(step.direct().url());
            assertThat(result.path("direct").path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("direct").path("endToEnd").path("p50Ms").asDouble()).isPositive();
            assertThat(result.path("interleaved").isNull()).isTrue();
        });
    }

    @Test
    void withAnInterleavedBaselineTheWarmFigureAndTheFirstRequestsEachHaveTheirOwn() throws Throwable {
        withColdStep(step -> {
            JsonNode result = step.run(dir.resolve("interleaved.json"),
                    "--interleaved-direct-url", step.direct().url(), "--direct-every", "3");

            assertThat(result.path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(result.path("endToEnd").path("count").asLong()).isEqualTo(30);
            JsonNode interleaved = result.path("interleaved");
            assertThat(interleaved.path("directUrl").asString()).isEqualTo(step.direct().url());
            assertThat(interleaved.path("every").asInt()).isEqualTo(3);
            assertThat(interleaved.path("failed").asLong()).isZero();
            assertThat(interleaved.path("trace").isNull()).isTrue();
            assertThat(interleaved.path("direct").path("count").asLong()).isEqualTo(10);
            assertThat(interleaved.path("addedP50Ms").asDouble()).isCloseTo(
                    result.path("endToEnd").path("p50Ms").asDouble()
                            - interleaved.path("direct").path("p50Ms").asDouble(), within(0.002));
            // Quarters of 8, 8, 8 and 6 requests; a direct one after the 3rd, 6th, ... 30th: 2, 3, 3 and 2 of them.
            JsonNode quarters = interleaved.path("quarters");
            assertThat(quarters).hasSize(4);
            long[] first = {0, 8, 16, 24};
            long[] proxiedCounts = {8, 8, 8, 6};
            long[] directCounts = {2, 3, 3, 2};
            for (int q = 0; q < 4; q++) {
                JsonNode quarter = quarters.get(q);
                assertThat(quarter.path("firstRequest").asLong()).isEqualTo(first[q]);
                assertThat(quarter.path("requests").asLong()).isEqualTo(proxiedCounts[q]);
                assertThat(quarter.path("directRequests").asLong()).isEqualTo(directCounts[q]);
                assertThat(quarter.path("addedP50Ms").asDouble()).isCloseTo(quarter.path("proxiedP50Ms").asDouble()
                        - quarter.path("directP50Ms").asDouble(), within(0.002));
            }
            JsonNode warm = result.path("warm");
            assertThat(warm.path("requests").path("succeeded").asLong()).isEqualTo(30);
            assertThat(warm.path("interleaved").path("direct").path("count").asLong()).isEqualTo(10);
            assertThat(result.path("direct").path("requests").path("succeeded").asLong()).isEqualTo(30);
        });
    }

    @Test
    void aTraceHoldsEveryRequestInOrderWithTheDirectOneAfterIt() throws Throwable {
        withColdStep(step -> {
            JsonNode result = step.run(dir.resolve("traced.json"),
                    "--interleaved-direct-url", step.direct().url(), "--direct-every", "3", "--trace");

            JsonNode trace = result.path("interleaved").path("trace");
            assertThat(trace.path("startEpochMillis").asLong()).isPositive();
            JsonNode requests = trace.path("requests");
            assertThat(requests).hasSize(30);
            long previousStart = -1;
            for (int i = 0; i < 30; i++) {
                JsonNode request = requests.get(i);
                assertThat(request.get(0).asLong()).isGreaterThan(previousStart);
                previousStart = request.get(0).asLong();
                assertThat(request.get(1).asLong()).isPositive();
                // A direct request after the 3rd, 6th, ... only.
                if ((i + 1) % 3 == 0) {
                    assertThat(request.get(2).asLong()).isPositive();
                } else {
                    assertThat(request.get(2).asLong()).isEqualTo(-1);
                }
            }
            assertThat(result.path("warm").path("interleaved").path("trace").path("requests")).hasSize(30);
        });
    }

    @Test
    void aTraceTakesAnInterleavedBaseline() {
        int exit = new CommandLine(new RoundRobinLoad()).execute("--endpoint", "GENERATE", "--concurrency", "1",
                "--urls", "http://127.0.0.1:9", "--trace", "--output", dir.resolve("untraceable.json").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(dir.resolve("untraceable.json")).doesNotExist();
    }

    @Test
    void anInterleavedBaselineTakesOneRequestAtATime() {
        int exit = new CommandLine(new RoundRobinLoad()).execute("--endpoint", "GENERATE", "--concurrency", "4",
                "--urls", "http://127.0.0.1:9", "--interleaved-direct-url", "http://127.0.0.1:9",
                "--output", dir.resolve("refused.json").toString());

        assertThat(exit).isEqualTo(2);
        assertThat(dir.resolve("refused.json")).doesNotExist();
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
            assertThat(result.path("interleaved").isNull()).isTrue();
        }
    }
}
