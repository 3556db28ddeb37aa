package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.core.kv.TokenAgreement;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import java.net.http.HttpResponse;
import org.assertj.core.data.Offset;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Simulated engines that publish their KV events over ZMQ (and tokenize with the demo tokenizer), and what a test
 * asks of a gateway subscribed to them: chats, and each worker's event state as {@code GET /kv_events} lists it.
 */
final class KvEventFleet {

    static final JsonMapper JSON = JsonMapper.shared();

    private KvEventFleet() {
    }

    /**
     * A fresh engine (a subscription joined late learns nothing of what its engine held before), with a replay
     * socket when {@code replay}.
     */
    static SimEngineServer engine(boolean replay) {
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(eventsConfig(replay)));
    }

    private static Config eventsConfig(boolean replay) {
        String replayEndpoint = replay ? ",\"replay_endpoint\":\"tcp://127.0.0.1:*\"" : "";
        return SimEngines.config().with(Settings.TOKENIZER_PATH, "demo").with(Settings.ENGINE_KV_EVENTS_CONFIG,
                "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:*\",\"topic\":\"kv-events\""
                        + replayEndpoint + "}");
    }

    /**
     * A fresh prefill engine ({@code --disaggregation-mode prefill}) publishing its KV events, with a replay socket
     * when {@code replay}.
     */
    static SimEngineServer prefillEngine(boolean replay) {
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(eventsConfig(replay)
                .with(Settings.DISAGGREGATION_MODE, "prefill").with(Settings.DISAGGREGATION_BOOTSTRAP_PORT, 0)));
    }

    /** A fresh decode engine, tokenizing as the others: it publishes no KV events. */
    static SimEngineServer decodeEngine() {
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(SimEngines.config()
                .with(Settings.TOKENIZER_PATH, "demo").with(Settings.DISAGGREGATION_MODE, "decode")));
    }

    /** A gateway pairing {@code prefills} with {@code decodes} ({@code --pd-disaggregation}), its KV events on auto. */
    static Config pairs(List<SimEngineServer> prefills, List<SimEngineServer> decodes) {
        return RunningGateway.prefillDecodeUrls(prefills.stream().map(SimEngineServer::url).toList(),
                decodes.stream().map(SimEngineServer::url).toList());
    }

    /** A cache-aware gateway over {@code engines}, its KV events on {@code auto}. */
    static Config gateway(List<SimEngineServer> engines) {
        return RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, engines.stream().map(SimEngineServer::url).toList())
                .with(Settings.POLICY, "cache_aware");
    }

    /** A chat of a system prompt and one question, answered in a few tokens; fails the test on any status but 200. */
    static HttpResponse<String> chat(RunningGateway gateway, String system, String question) {
        HttpResponse<String> response = send(gateway, system, question);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response;
    }

    /**
     * As {@link #chat}, streamed without asking for usage ({@code stream_options.include_usage}), as most streaming
     * clients do: the answer reports no token counts.
     */
    static HttpResponse<String> streamedChat(RunningGateway gateway, String system, String question) {
        HttpResponse<String> response = gateway.post("/v1/chat/completions", body(system, question).put("stream", true)
                .toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).as("no usage in the stream").doesNotContain("prompt_tokens");
        return response;
    }

    /** A chat of one question, after a system prompt unless it is null, answered in a few tokens. */
    static HttpResponse<String> send(RunningGateway gateway, String system, String question) {
        return gateway.post("/v1/chat/completions", body(system, question).toString());
    }

    private static ObjectNode body(String system, String question) {
        ArrayNode messages = JSON.createArrayNode();
        if (system != null) {
            messages.add(JSON.createObjectNode().put("role", "system").put("content", system));
        }
        messages.add(JSON.createObjectNode().put("role", "user").put("content", question));
        ObjectNode body = JSON.createObjectNode().put("model", "sim-model").put("max_tokens", 4);
        body.set("messages", messages);
        return body;
    }

    /**
     * Asserts that {@code answer} was placed on the exact view, predicting most of its prompt held ({@code why}), and
     * that the prediction is what the engine then reported cached, within 0.05 of the prompt.
     */
    static void assertPredictedAsReported(HttpResponse<String> answer, String why) {
        assertThat(answer.headers().firstValue("x-homing-routing-view")).hasValue("exact");
        double predicted = Double.parseDouble(answer.headers().firstValue("x-homing-predicted-hit").orElseThrow());
        JsonNode usage = JSON.readTree(answer.body()).path("usage");
        double realised = usage.path("prompt_tokens_details").path("cached_tokens").asDouble()
                / usage.path("prompt_tokens").asDouble();
        assertThat(predicted).as(why).isGreaterThan(0.5);
        assertThat(predicted).as("what the engine reported").isCloseTo(realised, Offset.offset(0.05));
    }

    /** Each subscribed worker's state now ({@code exact}, {@code stale}, {@code none}), by worker URL. */
    static Map<String, String> states(RunningGateway gateway) {
        return byWorker(gateway, "state");
    }

    /** Why each subscribed worker is in its state ({@code in_sequence} once a batch was heard), by worker URL. */
    static Map<String, String> reasons(RunningGateway gateway) {
        return byWorker(gateway, "reason");
    }

    private static Map<String, String> byWorker(RunningGateway gateway, String field) {
        Map<String, String> values = new HashMap<>();
        for (JsonNode worker : JSON.readTree(gateway.get("/kv_events").body()).path("workers")) {
            values.put(worker.path("worker").asString(), worker.path(field).asString());
        }
        return values;
    }

    /**
     * Sends chats until the engines' usage has confirmed the gateway's token counts: until then a model's look-ups
     * are not routed on.
     */
    static void awaitTokensVerified(RunningGateway gateway, List<SimEngineServer> engines) {
        AtomicInteger sent = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            KvEventFleet.chat(gateway, null, "Check " + sent.incrementAndGet() + ": which ports?");
            return engines.stream().mapToDouble(engine -> tokenChecks(gateway, engine, "agree")).sum()
                    >= TokenAgreement.MIN_CHECKS;
        });
    }

    static double tokenChecks(RunningGateway gateway, SimEngineServer engine, String result) {
        return gateway.metric("homing_kv_prompt_token_checks_total{result=\"" + result + "\",worker=\""
                + engine.url() + "\"}");
    }
}
