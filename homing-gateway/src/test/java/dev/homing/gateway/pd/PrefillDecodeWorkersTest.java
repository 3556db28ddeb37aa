package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.WorkerRole;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Prefill and decode workers: how they arrive, what they are shown as, and when the gateway is ready. */
class PrefillDecodeWorkersTest {

    private static final JsonMapper JSON = JsonMapper.shared();

    @RegisterExtension
    final Closing closing = new Closing();

    private <T extends AutoCloseable> T started(T closeable) {
        return closing.add(closeable);
    }

    private RunningGateway gateway(Config config) {
        return started(RunningGateway.start(config));
    }

    private static void awaitActive(RunningGateway gateway, int workers) {
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == workers);
    }

    @Test
    void theGatewayIsReadyOnlyWithAHealthyPrefillAndAHealthyDecodeWorker() {
        FakeWorker prefill = started(FakeWorker.startPrefill("m", 8998));
        RunningGateway gateway = gateway(RunningGateway.prefillDecodeConfig(List.of(prefill), List.of()));

        assertThat(gateway.get("/readiness").statusCode()).isEqualTo(503);

        FakeWorker decode = started(FakeWorker.startDecode("m"));
        gateway.post("/workers", "{\"url\":\"" + decode.url() + "\",\"worker_type\":\"decode\"}");
        awaitActive(gateway, 2);
        HttpResponse<String> ready = gateway.get("/readiness");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(ready.body()).path("healthy_decode_workers").asInt()).isEqualTo(1);
    }

    @Test
    void theWorkerApiTakesAndShowsTheWorkerTypeAndTheBootstrapPort() {
        FakeWorker prefill = started(FakeWorker.startPrefill("m", 0));
        RunningGateway gateway = gateway(RunningGateway.prefillDecodeConfig(List.of(), List.of()));

        HttpResponse<String> added = gateway.post("/workers", "{\"url\":\"" + prefill.url()
                + "\",\"worker_type\":\"prefill\",\"bootstrap_port\":9001}");

        assertThat(added.statusCode()).isEqualTo(202);
        awaitActive(gateway, 1);
        JsonNode shown = JSON.readTree(gateway.get("/workers").body()).path("workers").path(0);
        assertThat(shown.path("worker_type").asString()).isEqualTo("prefill");
        assertThat(shown.path("bootstrap_port").asInt()).isEqualTo(9001);
    }

    @Test
    void theWorkerApiRefusesARoleTheModeHasNoPlaceFor() {
        FakeWorker worker = started(FakeWorker.start("m"));
        RunningGateway prefillDecode = gateway(RunningGateway.prefillDecodeConfig(List.of(), List.of()));
        RunningGateway regular = gateway(RunningGateway.config(List.of()));

        assertThat(prefillDecode.post("/workers", "{\"url\":\"" + worker.url() + "\"}").body())
                .contains("worker_type must be prefill or decode");
        assertThat(regular.post("/workers", "{\"url\":\"" + worker.url() + "\",\"worker_type\":\"decode\"}"))
                .satisfies(r -> assertThat(r.statusCode()).isEqualTo(400))
                .satisfies(r -> assertThat(r.body()).contains("needs the gateway in prefill/decode mode"));
        assertThat(prefillDecode.post("/workers", "{\"url\":\"" + worker.url()
                + "\",\"worker_type\":\"decode\",\"bootstrap_port\":1}").body())
                .contains("bootstrap_port is a prefill worker's");
    }

    @Test
    void aPrefillWorkerAddedThroughTheApiIsInItsPoolsTreeAndHitsThere() {
        FakeWorker fromFlags = started(FakeWorker.startPrefill("m", 1));
        FakeWorker decode = started(FakeWorker.startDecode("m"));
        RunningGateway gateway = gateway(RunningGateway.prefillDecodeConfig(List.of(fromFlags), List.of(decode))
                .with(Settings.PREFILL_POLICY, "cache_aware"));
        FakeWorker fromApi = started(FakeWorker.startPrefill("m", 2));
        gateway.post("/workers", "{\"url\":\"" + fromApi.url() + "\",\"worker_type\":\"prefill\"}");
        awaitActive(gateway, 3);
        String conversation = "{\"text\":\"" + "a long shared conversation ".repeat(50) + "\"}";

        for (int i = 0; i < 6; i++) {
            assertThat(gateway.post("/generate", conversation).statusCode()).isEqualTo(200);
        }

        // Every request after the first matches the first one's prefill worker, whichever way it came.
        int onFirst = Math.max(fromFlags.received().size(), fromApi.received().size());
        assertThat(onFirst).isEqualTo(6);
        assertThat(gateway.metric("homing_routing_decisions_total{branch=\"hit\",model=\"m\","
                + "policy=\"cache_aware\"}")).isEqualTo(5);
        assertThat(gateway.gateway().registry().pool("m", WorkerRole.PREFILL).workers()).hasSize(2);
        assertThat(gateway.gateway().registry().pool("m", WorkerRole.DECODE).policy().name())
                .isEqualTo("decode_balance");
    }

    @Test
    void theDecodeLegSharesRequestsOutByWhatIsRunning() throws Exception {
        FakeWorker prefill = started(FakeWorker.startPrefill("m", 1));
        prefill.behaviour(FakeWorker.Behaviour.HANG);
        List<FakeWorker> decodes = List.of(started(FakeWorker.startDecode("m")), started(FakeWorker.startDecode("m")));
        RunningGateway gateway = gateway(RunningGateway.prefillDecodeConfig(List.of(prefill), decodes));
        try (RunningGateway.OpenPosts open = gateway.openPosts("/generate", 6,
                i -> "{\"text\":\"same text\",\"stream\":true}")) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> decodes.stream().mapToInt(d -> d.received().size()).sum() == 6);
            assertThat(decodes).allSatisfy(d -> assertThat(d.received()).hasSize(3));
        }
    }
}
