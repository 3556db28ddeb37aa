package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.core.kv.TokenAgreement;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.sim.http.SimEngineServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String SYSTEM = "You answer questions about the history of maritime navigation, briefly and "
            + "with dates where you know them; when you are unsure, say which sources disagree. ".repeat(4);

    @ParameterizedTest(name = "gateway tokenizer: {0}")
    @ValueSource(strings = {"demo", "none (the engine's /tokenize)"})
    void aRequestOnAWorkerWhoseEventsFlowIsJudgedExactlyAndPredictsWhatItsEngineReports(String tokenizer) {
        SimEngineServer first = KvEventFleet.engine(false);
        SimEngineServer second = KvEventFleet.engine(false);
        Config config = KvEventFleet.gateway(List.of(first, second))
                // A loaded machine may deliver a batch later than the default second: this test is not about silence.
                .with(Settings.KV_EVENTS_SILENCE_MS, 10_000L);
        if (tokenizer.equals("demo")) {
            config = config.with(Settings.TOKENIZER_PATH, "demo");
        }
        try (RunningGateway gateway = RunningGateway.start(config)) {
            awaitEventsHeard(gateway, List.of(first, second));
            KvEventFleet.awaitTokensVerified(gateway, List.of(first, second));
            String question = "Who first sailed around the Cape of Good Hope, and in which year? " + tokenizer;
            KvEventFleet.chat(gateway, SYSTEM, question);

            HttpResponse<String> again = KvEventFleet.chat(gateway, SYSTEM, question + " And who came next?");

            KvEventFleet.assertPredictedAsReported(again, "the first turn's prompt is held");
            // Counted once the answer is written: wait for it.
            await().atMost(Duration.ofSeconds(30)).until(() -> Stream.of(first, second).mapToDouble(engine -> gateway
                    .metric("homing_routing_view_total{model=\"sim-model\",view=\"exact\",worker=\"" + engine.url()
                            + "\"}")).sum() > 0);
            assertThat(gateway.metric("homing_kv_lookup_seconds_count")).as("look-ups timed").isPositive();
            assertThat(Stream.of(first, second).mapToDouble(engine -> KvEventFleet.tokenChecks(gateway, engine, "differ")).sum())
                    .as("the gateway counts each prompt as its engine does").isZero();
        } finally {
            first.close();
            second.close();
        }
    }

    /**
     * A gateway started beside engines that have served for a while (a restart, a new replica) asks each engine's
     * replay socket for what it still buffers before anything else: it knows what the engines hold before its first
     * request, and a conversation that went on through the gateway before it finds its history predicted.
     */
    @Test
    void aGatewayStartedBesideRunningEnginesCatchesUpOnTheirEventsAndRoutesOnWhatTheyHeld() {
        List<SimEngineServer> engines = List.of(KvEventFleet.engine(true), KvEventFleet.engine(true));
        Config config = KvEventFleet.gateway(engines).with(Settings.TOKENIZER_PATH, "demo")
                .with(Settings.KV_EVENTS_SILENCE_MS, 10_000L);
        String question = "Which harbours did the Hanseatic League trade through, and when did it decline?";
        try {
            try (RunningGateway before = RunningGateway.start(config)) {
                awaitEventsHeard(before, engines);
                KvEventFleet.chat(before, SYSTEM, question);
            }
            try (RunningGateway gateway = RunningGateway.start(config)) {
                await("each engine's view caught up, no request sent yet").atMost(Duration.ofSeconds(60))
                        .until(() -> engines.stream().allMatch(engine ->
                                "in_sequence".equals(KvEventFleet.reasons(gateway).get(engine.url()))));
                KvEventFleet.awaitTokensVerified(gateway, engines);

                HttpResponse<String> next = KvEventFleet.chat(gateway, SYSTEM, question + " And what came after?");

                KvEventFleet.assertPredictedAsReported(next, "the turn sent through the gateway before is held");
            }
        } finally {
            engines.forEach(SimEngineServer::close);
        }
    }

    /**
     * The gateway renders chats with another template than its engine's: each answer's usage shows that the engine
     * counted other tokens (or, for a stream without usage, its events never show the gateway's blocks), and after a
     * few the worker is set aside (its look-ups would match nothing the engine holds), routed on the tree, and the
     * gateway says why.
     */
    @ParameterizedTest(name = "streamed without usage: {0}")
    @ValueSource(booleans = {false, true})
    void aWorkerWhoseEngineCountsPromptsOtherwiseIsSetAsideAndSaysWhy(boolean streamed, @TempDir Path dir)
            throws Exception {
        Path template = Files.writeString(dir.resolve("chat_template.jinja"), """
                {% for message in messages %}<|im_start|>{{ message['role'] }} (as the gateway renders it)
                {{ message['content'] }}<|im_end|>
                {% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
                {% endif %}""");
        SimEngineServer engine = KvEventFleet.engine(false);
        Config config = KvEventFleet.gateway(List.of(engine)).with(Settings.KV_EVENTS_SILENCE_MS, 10_000L)
                .with(Settings.TOKENIZER_PATH, "demo").with(Settings.CHAT_TEMPLATE, template.toString());
        try (RunningGateway gateway = RunningGateway.start(config)) {
            awaitEventsHeard(gateway, List.of(engine));
            for (int i = 0; i < TokenAgreement.MIN_CHECKS; i++) {
                String question = "Question " + i + ": who?";
                HttpResponse<String> answer = streamed ? KvEventFleet.streamedChat(gateway, SYSTEM, question)
                        : KvEventFleet.chat(gateway, SYSTEM, question);
                assertThat(answer.headers().firstValue("x-homing-routing-view")).as("not verified yet")
                        .hasValue("approximate");
            }

            await().atMost(Duration.ofSeconds(30)).until(() -> "tokens_differ".equals(KvEventFleet.reasons(gateway)
                    .get(engine.url())));
            assertThat(KvEventFleet.states(gateway)).containsEntry(engine.url(), "stale");
            HttpResponse<String> next = KvEventFleet.chat(gateway, SYSTEM, "One more: who?");
            assertThat(next.headers().firstValue("x-homing-routing-view")).hasValue("approximate");
            assertThat(KvEventFleet.tokenChecks(gateway, engine, "differ")).isGreaterThanOrEqualTo(TokenAgreement.MIN_CHECKS);
            assertThat(KvEventFleet.tokenChecks(gateway, engine, "agree")).isZero();
            if (!streamed) {
                JsonNode checks = JSON.readTree(gateway.get("/kv_events").body()).path("workers").path(0)
                        .path("prompt_token_checks");
                assertThat(checks.path("last_difference").path("gateway_tokens").asLong())
                        .as("the gateway's template writes more").isGreaterThan(checks.path("last_difference")
                                .path("engine_tokens").asLong());
            }
        } finally {
            engine.close();
        }
    }

    /**
     * Streams answered without usage, with the same template on both sides: each prompt's engine comes to hold the
     * gateway's blocks it lacked before, so its tokens are verified and the view is routed on.
     */
    @Test
    void streamsWithoutUsageAreCheckedByTheBlocksTheirEngineStored() {
        SimEngineServer engine = KvEventFleet.engine(false);
        // A block is checked once the silence limit has passed: a short one, still far above a loaded machine's delay.
        Config config = KvEventFleet.gateway(List.of(engine)).with(Settings.KV_EVENTS_SILENCE_MS, 3_000L)
                .with(Settings.TOKENIZER_PATH, "demo");
        try (RunningGateway gateway = RunningGateway.start(config)) {
            awaitEventsHeard(gateway, List.of(engine));
            AtomicInteger sent = new AtomicInteger();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                // A system prompt of its own: none of its blocks is held before (a turn that adds a line to a prompt
                // held already has no block far enough from its end to check).
                KvEventFleet.streamedChat(gateway, "Stream " + sent.incrementAndGet() + ". " + SYSTEM, "Who?");
                return KvEventFleet.tokenChecks(gateway, engine, "agree") >= TokenAgreement.MIN_CHECKS;
            });

            HttpResponse<String> next = KvEventFleet.streamedChat(gateway, "Stream " + sent.get() + ". " + SYSTEM,
                    "And then?");
            assertThat(next.headers().firstValue("x-homing-routing-view")).hasValue("exact");
            assertThat(KvEventFleet.tokenChecks(gateway, engine, "differ")).isZero();
        } finally {
            engine.close();
        }
    }

    @Test
    void anErrorAnswerRanNothingSoItsWorkerIsNotExpectedToPublish() {
        SimEngineServer engine = KvEventFleet.engine(false);
        Duration silence = Duration.ofMillis(300);
        try (RunningGateway gateway = RunningGateway.start(KvEventFleet.gateway(List.of(engine))
                .with(Settings.KV_EVENTS_SILENCE_MS, silence.toMillis()))) {
            awaitEventsHeard(gateway, List.of(engine));
            KvEventFleet.awaitTokensVerified(gateway, List.of(engine));

            // Prompt plus output past the engine's context: refused before any prefill, nothing stored.
            HttpResponse<String> refused = gateway.post("/v1/chat/completions", JSON.createObjectNode()
                    .put("model", "sim-model").put("max_tokens", 100_000_000).set("messages", JSON.createArrayNode()
                            .add(JSON.createObjectNode().put("role", "user").put("content", SYSTEM))).toString());

            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            assertThat(refused.headers().firstValue("x-homing-routing-view")).hasValue("exact");
            await().during(silence.multipliedBy(3)).atMost(silence.multipliedBy(20))
                    .until(() -> "exact".equals(KvEventFleet.states(gateway).get(engine.url())));
        } finally {
            engine.close();
        }
    }

    /**
     * Waits until the gateway hears every engine's events. A subscription reaches an engine's PUB socket some time
     * after its worker is active, and what the engine publishes before then is lost to it (a view joined late): so
     * each engine not heard yet is given a prompt of its own, straight, unrelated to the test's, until it is.
     */
    private static void awaitEventsHeard(RunningGateway gateway, List<SimEngineServer> engines) {
        AtomicInteger warmUps = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
            Map<String, String> reasons = KvEventFleet.reasons(gateway);
            engines.stream().filter(engine -> !"in_sequence".equals(reasons.get(engine.url()))).forEach(engine -> {
                String text = "Warm-up " + warmUps.incrementAndGet() + ": " + "a list of harbours. ".repeat(20);
                HttpResponse<String> response = gateway.send(HttpRequest.newBuilder(URI.create(engine.url()
                        + "/generate")).POST(HttpRequest.BodyPublishers.ofString(JSON.createObjectNode()
                        .put("text", text).set("sampling_params", JSON.createObjectNode().put("max_new_tokens", 1))
                        .toString())).header("content-type", "application/json").build());
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            });
            return engines.stream().allMatch(engine -> "in_sequence".equals(reasons.get(engine.url())));
        });
    }
}
