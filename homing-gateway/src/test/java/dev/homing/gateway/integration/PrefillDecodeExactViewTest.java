package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.sim.http.SimEngineServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Prefill/decode pairs on the exact view: simulated prefill engines publish their KV events over ZMQ, decode engines
 * publish none (they are handed each prompt's KV). The gateway places each pair's prefill leg by what the prefill
 * engines report, says so, predicts the cached tokens the answer then reports, and checks its token counts against
 * the decode engine's usage.
 */
class PrefillDecodeExactViewTest {

    private static final String SYSTEM = "You answer questions about the lighthouses of the northern coasts, briefly "
            + "and with the year each was first lit; when you are unsure, say which registers disagree. ".repeat(4);

    @ParameterizedTest(name = "gateway tokenizer: {0}")
    @ValueSource(strings = {"demo", "none (a prefill engine's /tokenize)"})
    void aPairsPrefillLegIsJudgedOnWhatThePrefillEnginesReport(String tokenizer) {
        List<SimEngineServer> prefills = List.of(KvEventFleet.prefillEngine(false), KvEventFleet.prefillEngine(false));
        List<SimEngineServer> decodes = List.of(KvEventFleet.decodeEngine(), KvEventFleet.decodeEngine());
        Config config = KvEventFleet.pairs(prefills, decodes)
                // A loaded machine may deliver a batch later than the default second: this test is not about silence.
                .with(Settings.KV_EVENTS_SILENCE_MS, 10_000L);
        if (tokenizer.equals("demo")) {
            config = config.with(Settings.TOKENIZER_PATH, "demo");
        }
        try (RunningGateway gateway = RunningGateway.start(config)) {
            awaitPrefillEventsHeard(gateway, prefills);
            KvEventFleet.awaitTokensVerified(gateway, prefills);
            String question = "Which was the first lighthouse lit with electric light, and when? " + tokenizer;
            KvEventFleet.chat(gateway, SYSTEM, question);

            HttpResponse<String> again = KvEventFleet.chat(gateway, SYSTEM, question + " And the second?");

            KvEventFleet.assertPredictedAsReported(again, "the first turn's prompt is held");
            await().atMost(Duration.ofSeconds(30)).until(() -> prefills.stream().mapToDouble(engine -> gateway
                    .metric("homing_routing_view_total{model=\"sim-model\",view=\"exact\",worker=\"" + engine.url()
                            + "\"}")).sum() > 0);
            assertThat(prefills.stream().mapToDouble(engine -> KvEventFleet.tokenChecks(gateway, engine, "differ"))
                    .sum()).as("the gateway counts each prompt as the engines do").isZero();
            decodes.forEach(engine -> assertThat(Stream.of("exact", "approximate").mapToDouble(view -> gateway.metric(
                    "homing_routing_view_total{model=\"sim-model\",view=\"" + view + "\",worker=\"" + engine.url()
                            + "\"}")).sum()).as("no view judged a decode leg").isZero());
            Map<String, String> states = KvEventFleet.states(gateway);
            decodes.forEach(engine -> assertThat(states).as("a decode engine publishes nothing")
                    .containsEntry(engine.url(), "none"));
        } finally {
            Stream.concat(prefills.stream(), decodes.stream()).forEach(SimEngineServer::close);
        }
    }

    /**
     * Sends pairs of chats of their own until the gateway has heard every prefill engine's events: a prefill engine
     * serves no request alone, and a subscription made after an engine published has missed that batch.
     */
    private static void awaitPrefillEventsHeard(RunningGateway gateway, List<SimEngineServer> prefills) {
        AtomicInteger warmUps = new AtomicInteger();
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            KvEventFleet.chat(gateway, null, "Warm-up " + warmUps.incrementAndGet() + ": "
                    + "a list of harbours. ".repeat(20));
            Map<String, String> reasons = KvEventFleet.reasons(gateway);
            return prefills.stream().allMatch(engine -> "in_sequence".equals(reasons.get(engine.url())));
        });
    }
}
