package dev.homing.gateway.workers;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class WorkerApiTest {

    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @RegisterExtension
    static final OneWorkerGateway setup =
            new OneWorkerGateway("model-a", config -> config.with(Settings.POLICY, "round_robin"));

    @Test
    void anAddedWorkerIsProbedForItsModelAndThenTakesTraffic() {
        try (FakeWorker added = FakeWorker.start("model-a")) {
            HttpResponse<String> response = setup.gateway().post("/workers", "{\"url\":\"" + added.url() + "\"}");

            assertThat(response.statusCode()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> setup.gateway().get("/workers/" + idOf(response.body()))
                    .body().contains("\"state\":\"active\""));
            for (int i = 0; i < 4; i++) {
                setup.gateway().post("/v1/chat/completions", CHAT);
            }
            assertThat(added.received()).isNotEmpty();
            setup.gateway().gateway().registry().remove(added.url());
        }
    }

    @Test
    void aWorkerAlreadyRegisteredIsRefusedWith409() {
        HttpResponse<String> response = setup.gateway().post("/workers", "{\"url\":\"" + setup.worker().url() + "\"}");

        assertThat(response.statusCode()).isEqualTo(409);
    }

    @Test
    void aWorkerWithABadUrlIsRefusedWith400() {
        assertThat(setup.gateway().post("/workers", "{\"url\":\"ftp://x\"}").statusCode()).isEqualTo(400);
        assertThat(setup.gateway().post("/workers", "{\"nope\":1}").statusCode()).isEqualTo(400);
        assertThat(setup.gateway().post("/workers", "not json").statusCode()).isEqualTo(400);
    }

    @Test
    void aMalformedWorkerUrlIsRefusedWith400SayingWhatIsWrongAndNeverAJavaName() {
        Map<String, String> wrongs = Map.of(
                "http://127.0.0.1:99999", "port 99999 is out of range 1..65535",
                "http://127.0.0.1:0", "port 0 is out of range 1..65535",
                "http://127.0.0.1:-1", "port '-1' is not a number 1..65535",
                "http://127.0.0.1:abc", "port 'abc' is not a number 1..65535",
                "127.0.0.1:8000", "is not a URL; write http://host:port",
                "http://bad_host:8000", "'bad_host' is not a valid host name or IP address",
                "http://256.1.1.1:8000", "'256.1.1.1' is not a valid host name or IP address",
                "http://:8000", "has no host",
                "garbage", "must start with http://");
        wrongs.forEach((url, why) -> {
            HttpResponse<String> response = setup.gateway().post("/workers", "{\"url\":\"" + url + "\"}");

            assertThat(response.statusCode()).as(url).isEqualTo(400);
            assertThat(response.body()).as(url).contains("\"type\":\"invalid_request_error\"").contains(why)
                    .doesNotContain("Exception").doesNotContain("java.");
        });
    }

    @Test
    void workersAreListedWithoutTheirKeys() {
        HttpResponse<String> response = setup.gateway().get("/workers");

        assertThat(response.body()).contains(setup.worker().url()).contains("\"model_id\":\"model-a\"")
                .contains("\"has_api_key\":false").doesNotContain("api_key\":\"");
    }

    @Test
    void aWorkersLabelsAndPriorityCanBeChanged() throws Exception {
        HttpResponse<String> list =
                setup.gateway().get("/workers/" + java.net.URLEncoder.encode(setup.worker().url(), "UTF-8"));
        String id = idOf(list.body());

        var request = java.net.http.HttpRequest.newBuilder(java.net.URI.create(setup.gateway().url("/workers/" + id)))
                .PUT(java.net.http.HttpRequest.BodyPublishers.ofString("{\"labels\":{\"zone\":\"a\"},\"priority\":7}"))
                .build();
        HttpResponse<String> response = setup.gateway().send(request);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"zone\":\"a\"").contains("\"priority\":7");
    }

    @Test
    void aWorkerRemovedUnderTrafficLosesNoRequestAndGetsNoNewOnes() throws Exception {
        try (FakeWorker leaving = FakeWorker.start("model-a")) {
            setup.gateway().gateway().addWorker(WorkerSpec.of(leaving.url(), null)).activated()
                    .toCompletionStage().toCompletableFuture().get();
            List<Future<Integer>> results = new ArrayList<>();
            try (ExecutorService clients = Executors.newFixedThreadPool(4)) {
                for (int i = 0; i < 200; i++) {
                    if (i == 100) {
                        var delete = java.net.http.HttpRequest.newBuilder(
                                java.net.URI.create(setup.gateway().url("/workers/" + java.net.URLEncoder.encode(
                                        leaving.url(), "UTF-8")))).DELETE().build();
                        assertThat(setup.gateway().send(delete).statusCode()).isEqualTo(200);
                    }
                    results.add(clients.submit(() -> setup.gateway().post("/v1/chat/completions", CHAT).statusCode()));
                }
                for (Future<Integer> result : results) {
                    assertThat(result.get()).isEqualTo(200);
                }
            }
            int afterRemoval = leaving.received().size();
            setup.gateway().post("/v1/chat/completions", CHAT);
            setup.gateway().post("/v1/chat/completions", CHAT);
            assertThat(leaving.received()).hasSize(afterRemoval);
            setup.gateway().awaitNothingInFlight();
        }
    }

    @Test
    void anUnknownWorkerIs404() {
        assertThat(setup.gateway().get("/workers/no-such-worker").statusCode()).isEqualTo(404);
    }

    static String idOf(String json) {
        int start = json.indexOf("\"id\":\"") + 6;
        return json.substring(start, json.indexOf('"', start));
    }
}
