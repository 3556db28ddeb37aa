package dev.homing.gateway.workers;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WorkerHealthTest {

    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void beforeAnyWorkerIsUpReadinessIs503AndRequestsGetNoWorkers() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of()))) {
            gateway.gateway().addWorker(WorkerSpec.of("http://127.0.0.1:1", null));

            HttpResponse<String> readiness = gateway.get("/readiness");
            HttpResponse<String> chat = gateway.post("/v1/chat/completions", CHAT);

            assertThat(readiness.statusCode()).isEqualTo(503);
            assertThat(readiness.body()).contains("not ready");
            assertThat(chat.statusCode()).isEqualTo(503);
            assertThat(chat.headers().firstValue("x-smg-error-code")).hasValue("no_workers");
        }
    }

    @Test
    void anUnhealthyWorkerGetsNoTrafficUntilItRecovers() {
        try (FakeWorker sick = FakeWorker.start("m"); FakeWorker well = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(sick, well))
                     .with(Settings.POLICY, "round_robin").with(Settings.HEALTH_CHECK_INTERVAL_SECS, 1L)
                     .with(Settings.HEALTH_FAILURE_THRESHOLD, 1)
                     .with(Settings.HEALTH_SUCCESS_THRESHOLD, 1))) {
            sick.healthy(false);
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 1);

            for (int i = 0; i < 6; i++) {
                assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            }
            assertThat(sick.received()).isEmpty();

            sick.healthy(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 2);
        }
    }

    @Test
    void withAnApiKeyClientsMustPresentItAndWorkersReceiveTheirOwn() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.API_KEY, "gateway-key"))) {
            gateway.gateway().addWorker(new WorkerSpec(worker.url(), "worker-key", null, null, 50));
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 1);

            HttpResponse<String> without = gateway.post("/v1/chat/completions", CHAT);
            HttpResponse<String> with = gateway.post("/v1/chat/completions", CHAT,
                    "authorization", "Bearer gateway-key");

            assertThat(without.statusCode()).isEqualTo(401);
            assertThat(with.statusCode()).isEqualTo(200);
            assertThat(worker.received().getFirst().headers().get("authorization")).isEqualTo("Bearer worker-key");
        }
    }
}
