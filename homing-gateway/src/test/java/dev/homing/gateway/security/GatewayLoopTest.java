package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerLifecycle;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gateway never proxies to itself: its own listening address is refused as a worker, through the worker API and
 * in {@code --worker-urls}, and a request that has passed four gateways already (gateways that are each other's
 * workers) is answered 508 instead of being sent round again.
 */
class GatewayLoopTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String CHAT = "{\"model\":\"model-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @Test
    void theGatewaysOwnAddressIsRefusedAsAWorkerWith400() {
        try (FakeWorker worker = FakeWorker.start("model-a");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            for (String host : List.of("127.0.0.1", "localhost")) {
                HttpResponse<String> answer = gateway.post("/workers",
                        "{\"url\":\"http://" + host + ":" + gateway.gateway().port() + "\"}");

                assertThat(answer.statusCode()).as(host).isEqualTo(400);
                assertThat(code(answer)).isEqualTo("worker_is_this_gateway");
            }
            assertThat(gateway.gateway().registry().workers()).extracting(Worker::url).containsExactly(worker.url());
        }
    }

    @Test
    void itsOwnAddressInTheWorkerUrlsIsNotRegisteredWhileTheOtherWorkersAre() throws IOException {
        int port = freePort();
        String self = "http://localhost:" + port;
        try (FakeWorker worker = FakeWorker.start("model-a");
             LogCapture log = LogCapture.errorsOf(WorkerLifecycle.class)) {
            Gateway gateway = Gateway.start(new GatewayConfig(RunningGateway.config(List.of(worker))
                    .with(Settings.PORT, port).with(Settings.WORKER_URLS, List.of(self, worker.url()))));
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.registry().healthyCount() == 1
                        && gateway.registry().workers().size() == 1);

                assertThat(gateway.registry().workers()).extracting(Worker::url).containsExactly(worker.url());
                assertThat(log.errors()).anySatisfy(error -> assertThat(error)
                        .contains(self, "is this gateway's own address"));
            } finally {
                gateway.close();
            }
        }
    }

    @Test
    void aRequestThatHasPassedFourGatewaysIsAnswered508AndNotSent() {
        try (FakeWorker worker = FakeWorker.start("model-a");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            HttpResponse<String> looped = gateway.post("/v1/chat/completions", CHAT, "x-homing-hops", "4");
            HttpResponse<String> nonsense = gateway.post("/v1/chat/completions", CHAT, "x-homing-hops", "-1");

            assertThat(looped.statusCode()).isEqualTo(508);
            assertThat(code(looped)).isEqualTo("loop_detected");
            assertThat(nonsense.statusCode()).isEqualTo(400);
            assertThat(worker.received()).isEmpty();
        }
    }

    @Test
    void aRelayedRequestCarriesOneGatewayMoreThanItArrivedWith() {
        try (FakeWorker worker = FakeWorker.start("model-a");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            assertThat(gateway.post("/v1/chat/completions", CHAT, "x-homing-hops", "2").statusCode()).isEqualTo(200);

            assertThat(worker.received()).extracting(received -> received.headers().get("x-homing-hops"))
                    .containsExactly("1", "3");
        }
    }

    @Test
    void twoGatewaysThatAreEachOthersOnlyWorkersAnswer508AfterFourHops() {
        try (FakeWorker engine = FakeWorker.start("model-a");
             RunningGateway front = RunningGateway.start(List.of(engine), "round_robin");
             RunningGateway back = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.WORKER_URLS, List.of(front.url(""))))) {
            // The back gateway learnt its worker's model through the front one; now the front sends to it alone.
            assertThat(front.post("/workers", "{\"url\":\"" + back.url("") + "\"}").statusCode()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> front.gateway().registry().healthyCount() == 2);
            String engineId = URLEncoder.encode(engine.url(), StandardCharsets.UTF_8);
            assertThat(front.send(HttpRequest.newBuilder(URI.create(front.url("/workers/" + engineId))).DELETE()
                    .build()).statusCode()).isEqualTo(200);

            List<HttpResponse<String>> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(front.post("/v1/chat/completions", CHAT));
            }

            assertThat(answers).allSatisfy(answer -> {
                assertThat(answer.statusCode()).isEqualTo(508);
                assertThat(code(answer)).isEqualTo("loop_detected");
            });
            // Each arrived at the front three times: from the client, then with 2 and 4 hops. A relayed answer's
            // record is written just after its last bytes go out, so the last one may follow the client's answer.
            await().atMost(Duration.ofSeconds(30)).until(() -> front.metric(
                    "smg_http_requests_total{method=\"POST\",path=\"/v1/chat/completions\"}") == 15);
            assertThat(engine.received()).isEmpty();
        }
    }

    private static String code(HttpResponse<String> answer) {
        JsonNode error = JSON.readTree(answer.body()).path("error");
        return error.path("code").asString();
    }

    /** A port the OS picks, given back at once so the gateway can bind it. */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
