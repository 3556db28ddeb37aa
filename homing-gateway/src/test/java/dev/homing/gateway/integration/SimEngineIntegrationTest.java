package dev.homing.gateway.integration;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway in front of simulated SGLang engines, as a user would run it. */
class SimEngineIntegrationTest {

    private static final JsonMapper JSON = JsonMapper.shared();

    private static List<SimEngineServer> engines;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        SimEngineOptions options = SimEngines.options(SimEngines.config());
        engines = List.of(SimEngineServer.start(TestVertx.get(), options),
                SimEngineServer.start(TestVertx.get(), options));
        gateway = RunningGateway.start(RunningGateway.config(List.of()).with(Settings.WORKER_URLS,
                engines.stream().map(SimEngineServer::url).toList()).with(Settings.POLICY, "cache_aware"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        engines.forEach(SimEngineServer::close);
    }

    @Test
    void theEnginesModelIsLearnedAndListed() {
        assertThat(gateway.get("/v1/models").body()).contains("\"id\":\"sim-model\"");
    }

    @Test
    void aConversationsSecondTurnFindsItsPrefixCached() {
        for (int c = 0; c < 4; c++) {
            String system = "{\"role\":\"system\",\"content\":\"You are a careful assistant for project " + c
                    + ". Answer with detail and cite the relevant section of the handbook every time.\"}";
            String user1 = "{\"role\":\"user\",\"content\":\"Tell me about part " + c + " of the handbook.\"}";
            HttpResponse<String> first = gateway.post("/v1/chat/completions",
                    "{\"model\":\"sim-model\",\"max_tokens\":8,\"messages\":[" + system + "," + user1 + "]}");
            assertThat(first.statusCode()).isEqualTo(200);
            String reply = JSON.readTree(first.body()).path("choices").path(0).path("message").path("content")
                    .asString();

            HttpResponse<String> second = gateway.post("/v1/chat/completions",
                    "{\"model\":\"sim-model\",\"max_tokens\":8,\"messages\":[" + system + "," + user1
                            + ",{\"role\":\"assistant\",\"content\":" + JSON.writeValueAsString(reply) + "},"
                            + "{\"role\":\"user\",\"content\":\"And the next part?\"}]}");

            JsonNode usage = JSON.readTree(second.body()).path("usage");
            assertThat(usage.path("prompt_tokens_details").path("cached_tokens").asInt())
                    .as("cached tokens of turn 2 in conversation %d: %s", c, usage).isPositive();
        }
    }

    @Test
    void aStreamingGenerateEndsWithDone() {
        HttpResponse<String> response = gateway.post("/generate",
                "{\"text\":\"Once upon a time\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":4}}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("data: ").contains("data: [DONE]");
    }

    @Test
    void embeddingsAreRelayed() {
        HttpResponse<String> response = gateway.post("/v1/embeddings", "{\"input\":\"hello\"}");

        assertThat(response.statusCode()).isEqualTo(200);
    }
}
