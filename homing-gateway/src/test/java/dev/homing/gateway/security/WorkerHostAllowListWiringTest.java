package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code POST /workers} on a running gateway adds only hosts on the allow-list. */
class WorkerHostAllowListWiringTest {

    @Test
    void aWorkerOnAHostOutsideTheDefaultListIsRefusedAndALoopbackOneIsAdded() {
        try (FakeWorker first = FakeWorker.start("model-a");
             FakeWorker second = FakeWorker.start("model-a");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(first)))) {
            HttpResponse<String> refused = gateway.post("/workers", "{\"url\":\"http://10.255.255.1:8000\"}");

            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.headers().firstValue("x-smg-error-code")).hasValue("worker_host_not_allowed");
            assertThat(gateway.gateway().registry().workers()).hasSize(1);
            assertThat(gateway.post("/workers", "{\"url\":\"" + second.url() + "\"}").statusCode()).isEqualTo(202);
        }
    }

    @Test
    void anExplicitListReplacesTheDefault() {
        try (FakeWorker worker = FakeWorker.start("model-a");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.WORKER_HOST_ALLOW_LIST, List.of("10.0.0.0/8")))) {
            HttpResponse<String> refused = gateway.post("/workers", "{\"url\":\"" + worker.url() + "\"}");

            assertThat(refused.statusCode()).as("loopback is not on the explicit list").isEqualTo(403);
        }
    }

    @Test
    void aMalformedEntryStopsTheStartNamingTheFlag() {
        assertThatThrownBy(() -> new GatewayConfig(RunningGateway.config(List.of())
                .with(Settings.WORKER_HOST_ALLOW_LIST, List.of("10.0.0.0/99"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--worker-host-allow-list");
    }
}
