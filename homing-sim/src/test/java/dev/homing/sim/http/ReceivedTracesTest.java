package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/** The engine keeps the trace context each inference request brought, so a test can follow a trace into it. */
class ReceivedTracesTest {
    private static final String PLAIN = "{\"prompt\":\"trace\",\"max_tokens\":2}";
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void eachInferenceRequestWithATraceparentIsRecordedWithItsRequestId() throws Exception {
        try (SimEngineServer engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000))) {
            SimEngineClient client = new SimEngineClient(engine);
            HttpRequest traced = HttpRequest.newBuilder(URI.create(client.url() + "/v1/completions"))
                .header("content-type", "application/json").header("x-request-id", "traced-1")
                .header("traceparent", TRACEPARENT).POST(HttpRequest.BodyPublishers.ofString(PLAIN)).build();

            assertThat(client.http().send(traced, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            assertThat(client.post("/v1/completions", PLAIN).statusCode()).as("no trace context").isEqualTo(200);

            assertThat(engine.receivedTraces())
                .containsExactly(new SimEngineServer.ReceivedTrace("traced-1", TRACEPARENT));
        }
    }
}
