package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each fault flag, on an engine of its own. */
class FaultInjectionTest {
    private static final String STREAM = "{\"text\":\"fault\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":50}}";
    private static final String PLAIN = "{\"prompt\":\"fault\",\"max_tokens\":2}";

    @Test
    void failRateOneFailsEveryInferenceRequestWithTheConfiguredStatus() {
        try (SimEngineServer engine = start(Faults.NONE.withFailRate(1, 503))) {
            SimEngineClient client = new SimEngineClient(engine);

            var response = client.post("/v1/completions", PLAIN);

            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(SimEngineClient.JSON.readTree(response.body()).at("/error/message").stringValue())
                .isNotBlank();
            assertThat(client.get("/health").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theSameSeedFailsTheSameRequests() {
        assertThat(statuses(7)).isEqualTo(statuses(7)).contains(200, 500);
    }

    @Test
    void resetAfterTokensClosesTheConnectionMidStream() {
        StreamEnd end = stream(Faults.NONE.withResetAfterTokens(3), 5000);

        assertThat(end.closedByEngine()).as("closed by the engine").isTrue();
        assertThat(ServerSentEvents.countIn(end.text())).isEqualTo(3);
        assertThat(end.text()).doesNotContain("[DONE]");
    }

    @Test
    void stallAfterTokensGoesSilentWithTheConnectionOpen() {
        StreamEnd end = stream(Faults.NONE.withStallAfterTokens(2), 500);

        assertThat(end.closedByEngine()).as("closed by the engine").isFalse();
        assertThat(ServerSentEvents.countIn(end.text())).isEqualTo(2);
    }

    @Test
    void dieAfterRequestsServesThatManyThenStopsListening() {
        try (SimEngineServer engine = start(Faults.NONE.withDieAfterRequests(1))) {
            SimEngineClient client = new SimEngineClient(engine);
            assertThat(client.post("/v1/completions", PLAIN).statusCode()).isEqualTo(200);

            assertThatThrownBy(() -> client.post("/v1/completions", PLAIN)).isInstanceOf(Exception.class);

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThatThrownBy(() -> new SimEngineClient(engine).get("/health")).isInstanceOf(Exception.class));
        }
    }

    @Test
    void slowHealthDelaysHealthAnswers() {
        try (SimEngineServer engine = start(Faults.NONE.withSlowHealthMillis(300))) {
            SimEngineClient client = new SimEngineClient(engine);
            long start = System.nanoTime();

            assertThat(client.get("/health").statusCode()).isEqualTo(200);

            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
    }

    private static List<Integer> statuses(long seed) {
        Faults faults = new Faults(0.5, 500, 0, 0, 0, 0, seed);
        try (SimEngineServer engine = start(faults)) {
            SimEngineClient client = new SimEngineClient(engine);
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                statuses.add(client.post("/v1/completions", PLAIN).statusCode());
            }
            return statuses;
        }
    }

    /** How a streaming generate ended: closed by the engine, or silent for the given time; and what arrived. */
    private record StreamEnd(boolean closedByEngine, String text) {
    }

    /** A streaming generate on an engine with {@code faults}, read until closed or silent for {@code silenceMillis}. */
    private static StreamEnd stream(Faults faults, int silenceMillis) {
        try (SimEngineServer engine = start(faults); RawHttp http = RawHttp.post(engine, "/generate", STREAM)) {
            boolean closed = http.readUntilClosedOrSilent(silenceMillis);
            return new StreamEnd(closed, http.text());
        }
    }

    private static SimEngineServer start(Faults faults) {
        return SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000).withFaults(faults));
    }
}
