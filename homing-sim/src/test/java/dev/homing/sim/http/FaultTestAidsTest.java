package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the engine offers fault tests beyond the faults themselves: a record of answered requests, a fault switch. */
class FaultTestAidsTest {
    private static final String PLAIN = "{\"prompt\":\"aid\",\"max_tokens\":2}";
    private static final String STREAM = "{\"prompt\":\"aid\",\"max_tokens\":3,\"stream\":true}";

    @TempDir
    Path dir;

    /** A fast engine with {@code faults} that logs the ids of the requests it answers whole to {@code log}. */
    private static SimEngineOptions recordingTo(Path log, Faults faults) {
        SimEngineOptions fast = SimEngineOptions.defaults().withTimeScale(1000);
        return new SimEngineOptions(fast.host(), fast.port(), fast.modelName(), fast.timeScale(), fast.engine(),
            faults, log);
    }

    @Test
    void theRequestIdOfEachFullyAnsweredRequestIsAppendedToTheLog() throws Exception {
        Path log = dir.resolve("ids.txt");
        SimEngineOptions options = recordingTo(log, Faults.NONE);
        try (SimEngineServer engine = SimEngineServer.start(options)) {
            SimEngineClient client = new SimEngineClient(engine);

            assertThat(postWithId(client, "/v1/completions", PLAIN, "plain-1").statusCode()).isEqualTo(200);
            assertThat(postWithId(client, "/v1/completions", STREAM, "stream-1").body()).contains("[DONE]");
            assertThat(client.post("/v1/completions", PLAIN).statusCode()).as("no id, nothing logged").isEqualTo(200);
        }

        assertThat(Files.readAllLines(log)).containsExactly("plain-1", "stream-1");
    }

    @Test
    void aRequestCutShortByAFaultIsNotLogged() throws Exception {
        Path log = dir.resolve("ids.txt");
        SimEngineOptions options = recordingTo(log, Faults.NONE.withFailRate(1, 503));
        try (SimEngineServer engine = SimEngineServer.start(options)) {
            SimEngineClient client = new SimEngineClient(engine);

            assertThat(postWithId(client, "/v1/completions", PLAIN, "failed-1").statusCode()).isEqualTo(503);
        }

        assertThat(Files.readAllLines(log)).isEmpty();
    }

    @Test
    void clearFaultsLetsTheNextRequestsThrough() {
        SimEngineOptions options = SimEngineOptions.defaults().withTimeScale(1000)
            .withFaults(Faults.NONE.withFailRate(1, 503));
        try (SimEngineServer engine = SimEngineServer.start(options)) {
            SimEngineClient client = new SimEngineClient(engine);
            assertThat(client.post("/v1/completions", PLAIN).statusCode()).isEqualTo(503);

            assertThat(client.post("/clear_faults", "").statusCode()).isEqualTo(200);

            assertThat(client.post("/v1/completions", PLAIN).statusCode()).isEqualTo(200);
        }
    }

    private static HttpResponse<String> postWithId(SimEngineClient client, String path, String body, String id)
            throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(client.url() + path))
            .header("content-type", "application/json").header("x-request-id", id)
            .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.http().send(request, HttpResponse.BodyHandlers.ofString());
    }
}
