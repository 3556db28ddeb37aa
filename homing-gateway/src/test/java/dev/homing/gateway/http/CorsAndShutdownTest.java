package dev.homing.gateway.http;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CorsAndShutdownTest {

    @Test
    void withoutConfiguredOriginsAPreflightIsAllowedForAnyOrigin() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            HttpResponse<String> response = gateway.send(HttpRequest.newBuilder(
                            URI.create(gateway.url("/v1/chat/completions")))
                    .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
                    .header("origin", "https://app.example").header("access-control-request-method", "POST").build());

            assertThat(response.statusCode()).isEqualTo(204);
            assertThat(response.headers().firstValue("access-control-allow-origin")).hasValue("*");
            assertThat(response.headers().firstValue("access-control-max-age")).hasValue("3600");
        }
    }

    @Test
    void withConfiguredOriginsOnlyThoseAreAllowed() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                     .with(Settings.CORS_ALLOWED_ORIGINS, List.of("https://ok.example")))) {
            HttpResponse<String> allowed = gateway.send(HttpRequest.newBuilder(URI.create(gateway.url("/health")))
                    .header("origin", "https://ok.example").build());
            HttpResponse<String> other = gateway.send(HttpRequest.newBuilder(URI.create(gateway.url("/health")))
                    .header("origin", "https://evil.example").build());

            assertThat(allowed.headers().firstValue("access-control-allow-origin")).hasValue("https://ok.example");
            assertThat(other.headers().firstValue("access-control-allow-origin")).isEmpty();
        }
    }

    @Test
    void shutdownLetsARequestInFlightFinishWithinTheGracePeriod() {
        try (FakeWorker worker = FakeWorker.start("m")) {
            RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                    .with(Settings.SHUTDOWN_GRACE_PERIOD_SECS, 10L));
            worker.behaviour(Behaviour.SLOW);
            CompletableFuture<HttpResponse<String>> pending = CompletableFuture.supplyAsync(
                    () -> gateway.post("/v1/completions", "{\"prompt\":\"x\"}"));
            await().atMost(Duration.ofSeconds(5)).until(() -> gateway.inFlight() == 1);

            gateway.close();

            assertThat(pending.join().statusCode()).isEqualTo(200);
        }
    }
}
