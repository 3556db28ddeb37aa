package dev.homing.gateway.integration;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The order of a gateway's start: both ports bound first, then what runs while bound ({@code homing launch}'s proxy
 * warm-up) with {@code /readiness} held at 503, then the workers.
 */
class GatewayStartTest {

    @Test
    void readinessAnswers503WhileBoundAndNoWorkerRegistersBeforeTheWorkersTurn() throws Exception {
        try (FakeWorker worker = FakeWorker.start("m");
             HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            AtomicReference<HttpResponse<String>> readiness = new AtomicReference<>();
            AtomicReference<HttpResponse<String>> workers = new AtomicReference<>();
            Gateway gateway = Gateway.start(new GatewayConfig(RunningGateway.config(List.of(worker))), port -> {
                readiness.set(get(client, port, "/readiness"));
                workers.set(get(client, port, "/workers"));
            });
            try {
                assertThat(readiness.get().statusCode()).isEqualTo(503);
                assertThat(readiness.get().body()).contains("warming up");
                assertThat(workers.get().body()).doesNotContain(worker.url());
                await().atMost(Duration.ofMinutes(1))
                        .until(() -> get(client, gateway.port(), "/readiness").statusCode() == 200);
            } finally {
                gateway.close(Duration.ZERO);
            }
        }
    }

    @Test
    void aDataPlanePortInUseFailsTheStartBeforeAnythingRunsNamingThePortAndItsListener() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertStartFailsAtOnce(RunningGateway.config(List.of()).with(Settings.PORT, taken.getLocalPort()),
                    "127.0.0.1:" + taken.getLocalPort(), "data-plane listener");
        }
    }

    @Test
    void aMetricsPortInUseFailsTheStartBeforeAnythingRunsNamingThePortAndItsListener() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertStartFailsAtOnce(RunningGateway.config(List.of())
                            .with(Settings.PROMETHEUS_PORT, taken.getLocalPort()),
                    "127.0.0.1:" + taken.getLocalPort(), "metrics listener");
        }
    }

    private static void assertStartFailsAtOnce(Config config, String address, String listener) {
        AtomicBoolean ranWhileBound = new AtomicBoolean();
        assertThatThrownBy(() -> Gateway.start(new GatewayConfig(config), port -> ranWhileBound.set(true)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(address)
                .hasMessageContaining(listener);
        assertThat(ranWhileBound).as("what runs while bound (the warm-up) never ran").isFalse();
    }

    private static HttpResponse<String> get(HttpClient client, int port, String path) {
        try {
            return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
