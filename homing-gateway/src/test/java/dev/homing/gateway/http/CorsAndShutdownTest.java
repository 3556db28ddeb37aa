package dev.homing.gateway.http;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.gateway.workers.WorkerRegistry;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
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
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 1);

            gateway.close();

            assertThat(pending.join().statusCode()).isEqualTo(200);
        }
    }

    /**
     * A gateway closed while requests are in flight is left for the collector. (Vert.x's client stayed registered
     * with a JDK cleaner when only Vert.x was closed, and the body timer of an HTTP/2 request still reading led from
     * it back to the whole gateway: the warm-up's throwaway gateway stayed in every process's heap.)
     */
    @Test
    void aGatewayClosedWithRequestsInFlightIsLeftForTheCollector() {
        HttpClient h2 = TestVertx.get().createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
        try (FakeWorker worker = FakeWorker.start("m")) {
            WeakReference<WorkerRegistry> registry = closedWithRequestsInFlight(worker, h2);

            await().atMost(Duration.ofSeconds(30)).until(() -> {
                System.gc();
                return registry.get() == null;
            });
        } finally {
            h2.close();
        }
    }

    /**
     * Starts a gateway in front of {@code worker}, sends it one request the worker is slow to answer and one whose
     * body stops halfway (over HTTP/2, on {@code h2}), closes it at once and forgets it.
     */
    private static WeakReference<WorkerRegistry> closedWithRequestsInFlight(FakeWorker worker, HttpClient h2) {
        RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin");
        worker.behaviour(Behaviour.SLOW);
        CompletableFuture<HttpResponse<String>> pending = CompletableFuture.supplyAsync(
                () -> gateway.post("/v1/completions", "{\"prompt\":\"x\"}"));
        h2.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                        .setPort(gateway.gateway().port()).setURI("/v1/completions")
                        .putHeader("content-type", "application/json").putHeader("content-length", "100"))
                .onSuccess(request -> request.write("{\"prompt\":"));
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 1
                && gateway.metric("homing_body_memory_bytes") > 0);
        WeakReference<WorkerRegistry> registry = new WeakReference<>(gateway.gateway().registry());

        gateway.gateway().close(Duration.ZERO);

        pending.handle((answer, failure) -> null).join();
        return registry;
    }
}
