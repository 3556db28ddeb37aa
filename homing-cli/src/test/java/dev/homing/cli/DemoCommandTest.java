package dev.homing.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class DemoCommandTest {

    @Test
    void theDemoServesChatFromSimulatedEngines() throws Exception {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).parseArgs("--engines", "2", "--port", "0", "--prometheus-port", "-1",
                "--time-scale", "100");

        try (DemoCommand.Demo demo = command.start();
             HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> demo.gateway().registry().healthyCount() == 2);
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create(
                            "http://127.0.0.1:" + demo.gateway().port() + "/v1/chat/completions"))
                    .timeout(Duration.ofSeconds(10)).header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello!\"}],\"max_tokens\":4}"))
                    .build(), HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).contains("\"choices\"");
        }
    }

    @Test
    void theReplayMeasuresCacheHitsThroughTheGateway() {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).parseArgs("--engines", "2", "--port", "0", "--prometheus-port", "-1",
                "--time-scale", "100");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<String> quickWorkload = List.of("--workload", "multi-turn", "--rate", "20", "--max-requests", "24",
                "--duration", "30", "--turns", "3", "--system-prompts", "2", "--system-prompt-tokens", "200",
                "--output-tokens", "8", "--think-seconds", "0", "--seed", "1");

        try (DemoCommand.Demo demo = command.start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> demo.gateway().registry().healthyCount() == 2);
            int exit = DemoCommand.replay(demo, quickWorkload, new PrintStream(printed, true, StandardCharsets.UTF_8));

            assertThat(exit).isZero();
        }
        assertThat(printed.toString(StandardCharsets.UTF_8)).containsIgnoringCase("hit rate");
    }
}
