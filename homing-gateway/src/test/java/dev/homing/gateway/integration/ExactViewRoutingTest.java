package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.sim.http.SimEngineServer;
import org.assertj.core.data.Offset;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Simulated engines that publish their KV events over ZMQ and tokenize with a real tokenizer, and a gateway that
 * subscribes to them: once a worker's events flow, a request is judged on what its engine reported, says so, and
 * predicts the cached tokens the engine then reports. With and without a tokenizer in the gateway (else it asks the
 * engine's /tokenize).
 */
class ExactViewRoutingTest {

    private static final JsonMapper JSON = KvEventFleet.JSON;
    private static final String SYSTEM = "You answer questions about the history of maritime navigation, briefly and "
            + "with dates where you know them; when you are unsure, say which sources disagree. ".repeat(4);

    @ParameterizedTest(name = "gateway tokenizer: {0}")
    @ValueSource(strings = {"demo", "none (the engine's /tokenize)"})
    void aRequestOnAWorkerWhoseEventsFlowIsJudgedExactlyAndPredictsWhatItsEngineReports(String tokenizer) {
        SimEngineServer first = KvEventFleet.engine(false);
        SimEngineServer second = KvEventFleet.engine(false);
        Config config = KvEventFleet.gateway(List.of(first, second));
        if (tokenizer.equals("demo")) {
            config = config.with(Settings.TOKENIZER_PATH, "demo");
        }
        try (RunningGateway gateway = RunningGateway.start(config)) {
            String question = "Who first sailed around the Cape of Good Hope, and in which year? " + tokenizer;
            chat(gateway, question);
            await().atMost(Duration.ofSeconds(60)).until(() -> exactWorker(gateway) != null);

            HttpResponse<String> again = chat(gateway, question + " And who came next?");

            assertThat(again.headers().firstValue("x-homing-routing-view")).hasValue("exact");
            double predicted = Double.parseDouble(again.headers().firstValue("x-homing-predicted-hit").orElseThrow());
            JsonNode usage = JSON.readTree(again.body()).path("usage");
            double realised = usage.path("prompt_tokens_details").path("cached_tokens").asDouble()
                    / usage.path("prompt_tokens").asDouble();
            assertThat(predicted).as("the first turn's prompt is held").isGreaterThan(0.5);
            assertThat(predicted).as("what the engine reported").isCloseTo(realised, Offset.offset(0.05));
            // Counted once the answer is written: wait for it.
            String series = "homing_routing_view_total{model=\"sim-model\",view=\"exact\",worker=\""
                    + exactWorker(gateway) + "\"}";
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(series) > 0);
        } finally {
            first.close();
            second.close();
        }
    }

    /** A worker whose view is exact now, as {@code GET /kv_events} lists it, or null. */
    private static String exactWorker(RunningGateway gateway) {
        return KvEventFleet.states(gateway).entrySet().stream().filter(worker -> worker.getValue().equals("exact"))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }

    private static HttpResponse<String> chat(RunningGateway gateway, String question) {
        return KvEventFleet.chat(gateway, SYSTEM, question);
    }
}
