package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Settings;
import dev.homing.gateway.discovery.DiscoverySettings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.KubernetesApi;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRole;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Prefill/decode discovery against fabric8's mock API server: each pod's role comes from the role selectors, its
 * bootstrap port from its annotation, and both roles' pools are seeded with what discovery found.
 */
class PrefillDecodeDiscoveryTest {

    private static final Map<String, String> PREFILL = Map.of("app", "sglang", "role", "prefill");
    private static final Map<String, String> DECODE = Map.of("app", "sglang", "role", "decode");
    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    final Closing closing = new Closing();

    /** Fakes on 127.0.0.2, .3, .4, one port for all (the OS picks it for the first), as pods of one service. */
    private List<FakeWorker> fleet() {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            List<FakeWorker> fakes = new ArrayList<>();
            try {
                fakes.add(FakeWorker.startAt("127.0.0.2", 0, "m", FakeWorker.Role.PREFILL, 0));
                fakes.add(FakeWorker.startAt("127.0.0.3", fakes.getFirst().port(), "m", FakeWorker.Role.DECODE, 0));
                fakes.add(FakeWorker.startAt("127.0.0.4", fakes.getFirst().port(), "m", FakeWorker.Role.DECODE, 0));
                fakes.forEach(closing::add);
                return fakes;
            } catch (IllegalStateException taken) {
                fakes.forEach(FakeWorker::close);
                last = taken;
            }
        }
        throw last;
    }

    @Test
    void podsBecomePrefillAndDecodeWorkersByTheirLabelsAndServePairs() {
        List<FakeWorker> fakes = fleet();
        int port = fakes.getFirst().port();
        KubernetesApi api = closing.add(KubernetesApi.start());
        Pod prefill = new PodBuilder(KubernetesApi.pod("pd", "prefill-0", PREFILL, "127.0.0.2", true, port))
                .editMetadata().addToAnnotations("sglang.ai/bootstrap-port", "9100").endMetadata().build();
        api.create(prefill);
        api.create(KubernetesApi.pod("pd", "decode-0", DECODE, "127.0.0.3", true, port));
        api.create(KubernetesApi.pod("pd", "other-0", Map.of("app", "sglang"), "127.0.0.4", true, port));
        DiscoverySettings discovery = new DiscoverySettings(true, Map.of(), "pd", port, "sglang.ai/bootstrap-port",
                Duration.ofHours(1), Duration.ofHours(1), Duration.ofSeconds(30), api.url(),
                new DiscoverySettings.Roles(PREFILL, DECODE));
        RunningGateway gateway = closing.add(RunningGateway.start(
                RunningGateway.prefillDecodeConfig(List.of(), List.of()), discovery));

        await().atMost(WAIT).until(() -> gateway.get("/readiness").statusCode() == 200);
        // Discovery reads the pods one by one, perhaps the one of no role after the others' workers serve.
        await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_pods{state=\"no_role\"}") == 1);
        Worker prefillWorker = gateway.gateway().registry().find(fakes.get(0).url());
        assertThat(prefillWorker.role()).isEqualTo(WorkerRole.PREFILL);
        assertThat(prefillWorker.bootstrapPort()).isEqualTo(9100);
        assertThat(gateway.gateway().registry().find(fakes.get(1).url()).role()).isEqualTo(WorkerRole.DECODE);
        assertThat(gateway.gateway().registry().find(fakes.get(2).url())).as("a pod of no role").isNull();
        assertThat(gateway.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")
                .statusCode()).isEqualTo(200);
        assertThat(fakes.get(0).received()).hasSize(1);
        assertThat(fakes.get(1).received()).hasSize(1);
        assertThat(gateway.gateway().config().get(Settings.PD_DISAGGREGATION)).isTrue();
    }
}
