package dev.homing.gateway.workers;

import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.TestVertx;
import io.vertx.core.http.HttpServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class UnreachableWorkerTest {

    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void aWorkerThatRefusesConnectionsIsNamedWithItsReasonInThe503AndReadiness() throws IOException {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of()))) {
            String url = "http://127.0.0.1:" + refusingPort();
            Worker worker = gateway.gateway().addWorker(WorkerSpec.of(url, null)).worker();
            await().atMost(Duration.ofSeconds(30)).until(() -> worker.unreachableReason() != null);

            HttpResponse<String> chat = gateway.post("/v1/chat/completions", CHAT);
            HttpResponse<String> readiness = gateway.get("/readiness");

            assertThat(worker.unreachableReason()).isEqualTo("connection refused");
            assertThat(chat.statusCode()).isEqualTo(503);
            assertThat(chat.body()).contains("\"type\":\"server_error\"")
                    .contains("1 worker not reachable: " + url + " (pending: connection refused)");
            assertThat(readiness.statusCode()).isEqualTo(503);
            assertThat(readiness.body()).contains("\"status\":\"not ready\"")
                    .contains("\"unavailable_workers\":{").contains("\"url\":\"" + url + "\"")
                    .contains("\"reason\":\"connection refused\"");
        }
    }

    @Test
    void withManyUnreachableWorkersThe503NamesTheFirstFewAndCountsTheRest() throws IOException {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of()))) {
            List<Worker> workers = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                workers.add(gateway.gateway().addWorker(WorkerSpec.of("http://127.0.0." + (i + 1) + ":"
                        + refusingPort(), null)).worker());
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> workers.stream().allMatch(w -> w.unreachableReason() != null));

            String body = gateway.post("/v1/chat/completions", CHAT).body();

            assertThat(body).contains("5 workers not reachable: ").contains(" and 2 more");
            assertThat(body.split("connection refused", -1)).hasSize(4);
        }
    }

    @Test
    void aWorkerAnswering500IsWarnedOnceWithItsReasonAndAnInfoWhenItRecovers() throws Exception {
        AtomicBoolean failing = new AtomicBoolean(true);
        AtomicInteger probes = new AtomicInteger();
        HttpServer stub = TestVertx.get().createHttpServer().requestHandler(req -> {
            probes.incrementAndGet();
            if (failing.get()) {
                req.response().setStatusCode(500).end("boom");
            } else {
                req.response().putHeader("content-type", "application/json").end("{\"model_path\":\"m\"}");
            }
        });
        stub.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        String url = "http://127.0.0.1:" + stub.actualPort();
        try (LogCapture log = LogCapture.infoOf(WorkerLifecycle.class);
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of()))) {
            Worker worker = gateway.gateway().addWorker(WorkerSpec.of(url, null)).worker();
            // Three attempts, each probing /get_model_info then /v1/models: retries, whose reason did not change.
            await().atMost(Duration.ofSeconds(20)).until(() -> probes.get() >= 6);

            assertThat(worker.unreachableReason()).isEqualTo("answered HTTP 500 to /v1/models");
            assertThat(gateway.post("/v1/chat/completions", CHAT).body())
                    .contains(url + " (pending: answered HTTP 500 to /v1/models)");
            assertThat(log.messages().stream().filter(line -> line.contains(url))).containsExactly(
                    "worker " + url + " not reachable yet (answered HTTP 500 to /v1/models); probing it again "
                            + "until 1800 s after its registration");

            failing.set(false);
            // The worker turns active just before the line that says so is logged: wait on the line.
            await().atMost(Duration.ofSeconds(40)).until(() -> log.messages().stream()
                    .anyMatch(line -> line.startsWith("worker " + url + " active")
                            && line.endsWith("reachable now after: answered HTTP 500 to /v1/models")));
            assertThat(worker.state()).isEqualTo(Worker.State.ACTIVE);
            assertThat(worker.unreachableReason()).isNull();
        } finally {
            stub.close();
        }
    }

    /** A loopback port nothing listens on: bound by the OS, then closed. */
    private static int refusingPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
