package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prefill/decode pairs through the gateway, against fake prefill and decode workers over loopback HTTP: what the
 * simulated engines cannot show (the bytes each leg was sent) or do not do (fail, hang, break on cue). The pairs that
 * simulated engines serve are {@link SimulatedPrefillDecodeTest}.
 */
class PrefillDecodePairTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String STREAM = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"stream\":true}";

    @RegisterExtension
    final Closing closing = new Closing();

    private FakeWorker prefill(int bootstrapPort) {
        return closing.add(FakeWorker.startPrefill("m", bootstrapPort));
    }

    private FakeWorker prefill(int bootstrapPort, Behaviour behaviour) {
        FakeWorker worker = prefill(bootstrapPort);
        worker.behaviour(behaviour);
        return worker;
    }

    private FakeWorker decode() {
        return closing.add(FakeWorker.startDecode("m"));
    }

    private RunningGateway gateway(Config config) {
        return closing.add(RunningGateway.start(config));
    }

    /** A gateway pairing {@code prefills} with {@code decodes}, its test defaults changed by {@code settings}. */
    private RunningGateway gateway(List<FakeWorker> prefills, List<FakeWorker> decodes,
                                   UnaryOperator<Config> settings) {
        return gateway(settings.apply(RunningGateway.prefillDecodeConfig(prefills, decodes)));
    }

    private RunningGateway gateway(FakeWorker prefill, FakeWorker decode) {
        return gateway(List.of(prefill), List.of(decode), UnaryOperator.identity());
    }

    /** A prefill worker reporting bootstrap port 8998, a decode worker, and their gateway. */
    private record Pair(FakeWorker prefill, FakeWorker decode, RunningGateway gateway) {
    }

    private Pair pair() {
        FakeWorker prefill = prefill(8998);
        FakeWorker decode = decode();
        return new Pair(prefill, decode, gateway(prefill, decode));
    }

    /** Each of a leg's two workers got the request once: the failed one was not tried again. */
    private static void assertEachDeliveredOnce(String leg, FakeWorker first, FakeWorker second) {
        assertThat(first.received()).as("deliveries to the first " + leg).hasSize(1);
        assertThat(second.received()).as("deliveries to the second " + leg).hasSize(1);
    }

    private static JsonNode body(FakeWorker.Received received) {
        return JSON.readTree(received.body());
    }

    @Test
    void bothLegsGetTheSameBodyWithTheBootstrapFieldsAndTheClientGetsTheDecodeAnswer() {
        Pair pair = pair();

        HttpResponse<String> response = pair.gateway().post("/v1/chat/completions", CHAT);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("x-worker")).hasValue(pair.decode().url());
        byte[] toPrefill = pair.prefill().received().getFirst().body();
        byte[] toDecode = pair.decode().received().getFirst().body();
        assertThat(new String(toPrefill, StandardCharsets.UTF_8))
                .isEqualTo(new String(toDecode, StandardCharsets.UTF_8))
                .startsWith("{\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":8998,\"bootstrap_room\":")
                .endsWith("," + CHAT.substring(1));
        assertThat(body(pair.prefill().received().getFirst()).path("bootstrap_room").asLong()).isNotNegative();
    }

    @Test
    void aBootstrapPortNobodyGaveIsTheOneThePrefillWorkerReports() {
        FakeWorker prefill = prefill(9123);
        FakeWorker decode = decode();
        RunningGateway gateway = gateway(prefill, decode);

        gateway.post("/v1/chat/completions", CHAT);

        assertThat(body(decode.received().getFirst()).path("bootstrap_port").asInt()).isEqualTo(9123);
    }

    @Test
    void aPrefillThatFailsHasThePairRetriedOnAnotherPrefillWorker() {
        FakeWorker failing = prefill(8998, Behaviour.FAIL_500);
        FakeWorker healthy = prefill(8999);
        FakeWorker decode = decode();
        RunningGateway gateway = gateway(List.of(failing, healthy), List.of(decode),
                c -> c.with(Settings.PREFILL_POLICY, "round_robin"));

        for (int i = 0; i < 4; i++) {
            assertThat(gateway.post("/v1/chat/completions", STREAM).body())
                    .isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
        }

        assertThat(failing.received()).isNotEmpty();
        assertThat(healthy.received()).hasSize(4);
        gateway.awaitNothingInFlight();
        // Each failed pair's decode leg went out too, and was let go: at most one decode leg per attempt (one let go
        // before it reached the worker never arrives there).
        assertThat(decode.received().size()).isBetween(4, 4 + failing.received().size());
        assertThat(gateway.metric("smg_pd_prefill_errors_total{worker=\"" + failing.url() + "\"}"))
                .isEqualTo(failing.received().size());
    }

    @Test
    void aDecodeThatFailsHasThePairRetriedOnAnotherDecodeWorker() {
        FakeWorker prefill = prefill(8998);
        FakeWorker failing = decode();
        failing.behaviour(Behaviour.FAIL_503);
        FakeWorker healthy = decode();
        RunningGateway gateway = gateway(List.of(prefill), List.of(failing, healthy),
                c -> c.with(Settings.DECODE_POLICY, "round_robin"));

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("x-worker")).hasValue(healthy.url());
        }
        gateway.awaitNothingInFlight();
        // At most one prefill leg per attempt: a failed pair's prefill leg let go before it reached the worker never
        // arrives there.
        assertThat(prefill.received().size()).isBetween(4, 4 + failing.received().size());
    }

    @Test
    void aPairWhoseDecodeReadTheRequestAndClosedGoesOnceMoreAndNeverToThatDecodeAgain() {
        FakeWorker firstDecode = decode();
        FakeWorker secondDecode = decode();
        firstDecode.behaviour(Behaviour.CLOSE_AFTER_BODY);
        secondDecode.behaviour(Behaviour.CLOSE_AFTER_BODY);
        RunningGateway gateway = gateway(List.of(prefill(8998), prefill(8999)), List.of(firstDecode, secondDecode),
                c -> c.with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(JSON.readTree(response.body()).path("error").path("code").asString())
                .isEqualTo("call_upstream_failed");
        gateway.awaitNothingInFlight();
        assertEachDeliveredOnce("decode", firstDecode, secondDecode);
    }

    @Test
    void aPairWhosePrefillReadTheRequestAndClosedIsNeverSentToThatPrefillAgain() {
        FakeWorker firstPrefill = prefill(8998, Behaviour.CLOSE_AFTER_BODY);
        FakeWorker secondPrefill = prefill(8999, Behaviour.CLOSE_AFTER_BODY);
        RunningGateway gateway = gateway(List.of(firstPrefill, secondPrefill), List.of(decode(), decode()),
                c -> c.with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertThat(response.statusCode()).isEqualTo(502);
        gateway.awaitNothingInFlight();
        assertEachDeliveredOnce("prefill", firstPrefill, secondPrefill);
    }

    @Test
    void whenEveryPrefillFailsTheClientGetsThePrefillsErrorAndNothingStaysCounted() {
        FakeWorker failing = prefill(8998, Behaviour.FAIL_500);
        RunningGateway gateway = gateway(List.of(failing), List.of(decode()),
                c -> c.with(Settings.RETRY_MAX_RETRIES, 2));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", STREAM);

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(JSON.readTree(response.body()).path("error").path("message").asString()).contains("boom");
        assertThat(failing.received()).hasSize(2);
        gateway.awaitNothingInFlight();
    }

    @Test
    void aPrefillThatBreaksAfterHandingOverItsKvLeavesTheStreamWhole() {
        FakeWorker prefill = prefill(8998, Behaviour.BREAK_AFTER_HANDOFF);
        FakeWorker decode = decode();
        RunningGateway gateway = gateway(prefill, decode);

        HttpResponse<String> response = gateway.post("/v1/chat/completions", STREAM);

        assertThat(response.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
        gateway.awaitNothingInFlight();
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(
                "smg_pd_prefill_errors_total{worker=\"" + prefill.url() + "\"}") == 1);
        assertThat(decode.received()).hasSize(1);
    }

    @Test
    void thePrefillLegCountsOnItsWorkerFromItsPlacementNotFromTheDecodeAnswer() throws Exception {
        FakeWorker prefill = prefill(8998, Behaviour.HANG);
        FakeWorker decode = decode();
        RunningGateway gateway = gateway(prefill, decode);

        try (var socket = gateway.openPost("/v1/chat/completions", STREAM)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> prefill.received().size() == 1);
            // The decode worker has sent its head and waits for the KV: the prefill is what is in flight.
            assertThat(gateway.gateway().registry().find(prefill.url()).inFlight()).isEqualTo(1);
            assertThat(gateway.gateway().registry().find(decode.url()).inFlight()).isEqualTo(1);
        }
        gateway.awaitNothingInFlight();
    }

    @Test
    void longPromptsToSlowPrefillsSpreadOverThePrefillWorkers() throws Exception {
        List<FakeWorker> prefills = List.of(prefill(1, Behaviour.HANG), prefill(2, Behaviour.HANG),
                prefill(3, Behaviour.HANG));
        RunningGateway gateway = gateway(prefills, List.of(decode()),
                c -> c.with(Settings.PREFILL_POLICY, "cache_aware"));
        try (RunningGateway.OpenPosts open = gateway.openPosts("/generate", 9,
                i -> "{\"text\":\"" + ("prompt " + i + " ").repeat(2_000) + "\",\"stream\":true}")) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> prefills.stream().mapToInt(p -> p.received().size()).sum() == 9);
            // cache_aware's miss goes to the least loaded worker: with the prefill leg counted from its
            // placement, nine long prompts whose prefill never ends share three workers three each.
            assertThat(prefills).allSatisfy(p -> assertThat(p.received()).hasSize(3));
        }
        gateway.awaitNothingInFlight();
    }

    @Test
    void aRequestWhosePrefixIsBeingPrefilledWaitsForThatPrefillBeforeEitherLegGoes() throws Exception {
        FakeWorker slow = prefill(1, Behaviour.SLOW);
        FakeWorker other = prefill(2, Behaviour.SLOW);
        RunningGateway gateway = gateway(List.of(slow, other), List.of(decode()), UnaryOperator.identity());
        String body = "{\"text\":\"" + "a system prompt shared by two requests ".repeat(100) + "\"}";

        try (var first = gateway.openPost("/generate", body)) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> slow.received().size() + other.received().size() == 1);
            HttpResponse<String> second = gateway.post("/generate", body);

            assertThat(second.statusCode()).isEqualTo(200);
            // Held on the first one's prefill, then sent where that prefix now is.
            assertThat(Math.max(slow.received().size(), other.received().size())).isEqualTo(2);
            assertThat(gateway.metric("homing_prefill_waits_total{model=\"m\",outcome=\"released\"}"))
                    .isEqualTo(1);
        }
        gateway.awaitNothingInFlight();
    }

    @Test
    void aPrefillWorkersClientErrorsNeverOpenItsCircuit() {
        FakeWorker prefill = prefill(1, Behaviour.BAD_REQUEST);
        RunningGateway gateway = gateway(List.of(prefill), List.of(decode()),
                c -> c.with(Settings.CB_FAILURE_THRESHOLD, 2));

        for (int i = 0; i < 6; i++) {
            assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(400);
        }

        String id = gateway.gateway().registry().find(prefill.url()).id();
        assertThat(gateway.gateway().breakers().of(id).state().label()).isEqualTo("closed");
        assertThat(prefill.received()).hasSize(6);
    }

    @Test
    void aDecodeWhosePrefillNeverCameFailsNamingTheKvTransferAndIsCounted() {
        FakeWorker decode = decode();
        decode.roomTimeout(Duration.ofMillis(200));
        RunningGateway gateway = gateway(prefill(8998, Behaviour.BAD_REQUEST), decode);

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        // The prefill's 400 is the client's fault: it ends the pair at once with that answer.
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("context too long");
        gateway.awaitNothingInFlight();
    }

    @Test
    void aDecodeFailingWithAKvTransferErrorIsCountedAndThePairRetried() {
        FakeWorker decode = decode();
        decode.roomTimeout(Duration.ofMillis(100));
        RunningGateway gateway = gateway(List.of(prefill(8998, Behaviour.HANG)), List.of(decode),
                c -> c.with(Settings.RETRY_MAX_RETRIES, 2));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).contains("KVTransferError(bootstrap_room=");
        assertThat(decode.received()).hasSize(2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> gateway.metric("smg_pd_kv_transfer_failures_total{backend_type=\"sglang\",model=\"m\"}")
                        == 2);
        gateway.awaitNothingInFlight();
    }

    @Test
    void aRouteWithNoDecodePhaseIsNotServedInPrefillDecodeMode() {
        RunningGateway gateway = gateway(prefill(1), decode());

        HttpResponse<String> response = gateway.post("/v1/embeddings", "{\"input\":\"hi\"}");

        assertThat(response.statusCode()).isEqualTo(501);
        assertThat(JSON.readTree(response.body()).path("error").path("code").asString()).isEqualTo("not_implemented");
    }

    @Test
    void aBodyThatSetsABootstrapFieldItselfIsRefusedAndCounted() {
        FakeWorker prefill = prefill(1);
        RunningGateway gateway = gateway(prefill, decode());

        HttpResponse<String> response = gateway.post("/generate", "{\"text\":\"a\",\"bootstrap_room\":7}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("'bootstrap_room' is set by the gateway");
        assertThat(prefill.received()).isEmpty();
        assertThat(gateway.metric("smg_pd_bootstrap_failures_total{backend_type=\"sglang\",model=\"m\"}"))
                .isEqualTo(1);
    }

    @Test
    void thePairsMetricsNameBothLegsAndEachLegsHitRate() {
        Pair pair = pair();

        pair.gateway().post("/v1/chat/completions", CHAT);

        // The prefill leg may end after the decode answer, and counts its answer just after giving its slot back.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(pair.gateway().scrapeMetrics()).contains(
                "smg_pd_requests_total{route=\"/v1/chat/completions\"} 1.0",
                "smg_pd_prefill_requests_total{worker=\"" + pair.prefill().url() + "\"} 1.0",
                "smg_pd_decode_requests_total{worker=\"" + pair.decode().url() + "\"} 1.0",
                "homing_pd_cached_tokens_total{leg=\"prefill\",model=\"m\"} 3.0",
                "homing_pd_prompt_tokens_total{leg=\"decode\",model=\"m\"} 5.0",
                "smg_pd_prefill_duration_seconds_count{backend_type=\"sglang\",model=\"m\"} 1",
                "smg_pd_ttft_seconds_count{backend_type=\"sglang\",model=\"m\"} 1",
                "smg_router_requests_total{backend_type=\"sglang\",connection_mode=\"http\",endpoint="
                        + "\"/v1/chat/completions\",model=\"m\",router_type=\"http_pd\",streaming=\"false\"} 1.0",
                "smg_worker_selection_total{connection_mode=\"http\",model=\"m\",policy=\"decode_balance\","
                        + "worker_type=\"decode\"} 1.0"));
        pair.gateway().awaitNothingInFlight();
    }
}
