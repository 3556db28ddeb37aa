package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prefill/decode pairs through the gateway to simulated prefill and decode engines ({@code homing sim-engine
 * --disaggregation-mode prefill|decode}) over loopback: the engines hand the KV over through the bootstrap room the
 * gateway gave both legs, so every answer here proves the fields right. One prefill engine is given with its
 * bootstrap port, the other leaves the gateway to learn it from the engine's {@code /get_server_info}.
 */
class SimulatedPrefillDecodeTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private static List<SimEngineServer> prefills;
    private static List<SimEngineServer> decodes;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        prefills = List.of(engine("prefill"), engine("prefill"));
        decodes = List.of(engine("decode"), engine("decode"));
        List<String> prefillValues = List.of(prefills.get(0).url(), Integer.toString(prefills.get(0).bootstrapPort()),
                prefills.get(1).url());
        gateway = RunningGateway.start(RunningGateway.prefillDecodeUrls(prefillValues,
                decodes.stream().map(SimEngineServer::url).toList()).with(Settings.PREFILL_POLICY, "cache_aware"));
    }

    private static SimEngineServer engine(String mode) {
        Config config = SimEngines.config().with(Settings.DISAGGREGATION_MODE, mode)
                .with(Settings.DISAGGREGATION_BOOTSTRAP_PORT, 0);
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(config));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        Stream.concat(prefills.stream(), decodes.stream()).forEach(SimEngineServer::close);
    }

    private static JsonNode post(String path, String body) {
        HttpResponse<String> response = gateway.post(path, body);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void aConversationsLaterTurnsReportThePromptTokensThePrefillEngineHadCached() {
        for (int c = 0; c < 4; c++) {
            String history = "{\"role\":\"system\",\"content\":\"You answer questions about handbook " + c
                    + " with care, and cite the section of the handbook you took each answer from.\"},"
                    + "{\"role\":\"user\",\"content\":\"What does part one of handbook " + c + " say?\"}";
            for (int turn = 0; turn < 3; turn++) {
                JsonNode answer = post("/v1/chat/completions",
                        "{\"model\":\"sim-model\",\"max_tokens\":8,\"messages\":[" + history + "]}");
                int cached = answer.path("usage").path("prompt_tokens_details").path("cached_tokens").asInt();
                if (turn > 0) {
                    assertThat(cached).as("turn %d of conversation %d: %s", turn, c, answer.path("usage"))
                            .isPositive();
                }
                history += ",{\"role\":\"assistant\",\"content\":" + JSON.writeValueAsString(answer.path("choices")
                        .path(0).path("message").path("content").asString()) + "},"
                        + "{\"role\":\"user\",\"content\":\"And part " + (turn + 2) + "?\"}";
            }
        }
        gateway.awaitNothingInFlight();
        // A prefill leg counts its usage just after giving its slot back.
        await().atMost(Duration.ofSeconds(30)).until(
                () -> gateway.metric("homing_pd_cached_tokens_total{leg=\"prefill\",model=\"sim-model\"}") > 0);
    }

    @Test
    void aStreamedPairRelaysTheDecodeEnginesTokensToTheEnd() {
        HttpResponse<String> response = gateway.post("/generate",
                "{\"text\":\"Once upon a time\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":6}}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(response.body()).startsWith("data: ").endsWith("data: [DONE]\n\n");
        String last = response.body().lines().filter(l -> l.startsWith("data: {")).reduce((a, b) -> b).orElseThrow();
        assertThat(JSON.readTree(last.substring(6)).path("meta_info").path("completion_tokens").asInt())
                .isEqualTo(6);
    }

    @Test
    void aBatchOfSeveralSamplesIsAnsweredItemByItemThroughTheRoomsTheGatewayGaveIt() {
        JsonNode answers = post("/generate",
                "{\"text\":[\"first prompt\",\"second prompt\"],\"sampling_params\":{\"max_new_tokens\":3,\"n\":2}}");

        assertThat(answers.isArray()).isTrue();
        assertThat(answers.size()).isEqualTo(4);
        answers.forEach(answer -> assertThat(answer.path("meta_info").path("completion_tokens").asInt()).isEqualTo(3));
    }

    @Test
    void thePromptsLogProbabilitiesComeFromThePrefillEngineInFrontOfTheDecodes() {
        JsonNode meta = post("/generate", "{\"text\":\"The quick brown fox jumps over the lazy dog\","
                + "\"return_logprob\":true,\"sampling_params\":{\"max_new_tokens\":4}}").path("meta_info");

        JsonNode input = meta.path("input_token_logprobs");
        assertThat(input.size()).isEqualTo(meta.path("prompt_tokens").asInt()).isPositive();
        assertThat(input.path(0).path(0).isNull()).isTrue();
        assertThat(meta.path("output_token_logprobs").size()).isEqualTo(4);
    }

    @Test
    void aChatAskingForSeveralChoicesIsServed() {
        JsonNode answer = post("/v1/chat/completions", "{\"model\":\"sim-model\",\"max_tokens\":3,\"n\":2,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"two answers, please\"}]}");

        assertThat(answer.path("choices").isEmpty()).isFalse();
    }

    @Test
    void noRoomIsLeftOnAnyEngineOnceThePairsAreOver() throws Exception {
        for (int i = 0; i < 8; i++) {
            post("/generate", "{\"text\":\"request " + i + "\",\"sampling_params\":{\"max_new_tokens\":2}}");
        }

        gateway.awaitNothingInFlight();
        for (SimEngineServer engine : Stream.concat(prefills.stream(), decodes.stream()).toList()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> rooms(engine) == 0);
        }
    }

    private static int rooms(SimEngineServer engine) throws Exception {
        HttpResponse<String> info = CLIENT.send(HttpRequest.newBuilder(URI.create(engine.url() + "/get_server_info"))
                .build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(info.body()).path("bootstrap_rooms").asInt(-1);
    }
}
