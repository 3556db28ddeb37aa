package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** A client that hangs up aborts its request: the slot and the KV it held are freed. */
class ClientDisconnectTest {
    /** Bounds only a failure reaches: with both cores busy beside other builds, noticing a hang-up can take seconds. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    private static SimEngineServer engine;
    private static SimEngineClient client;

    @BeforeAll
    static void start() {
        // Slow enough that the long answer is still running when the client leaves.
        engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(10));
        client = new SimEngineClient(engine);
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    @Test
    void hangingUpMidStreamAbortsTheRequestAndFreesItsTokens() {
        try (RawHttp http = RawHttp.post(engine, "/generate",
            "{\"text\":\"tell me everything\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":100000}}")) {
            http.readUntil("data:", (int) BOUND.toMillis());
            assertThat(load().path("num_reqs").intValue()).isEqualTo(1);
        }

        await().atMost(BOUND).untilAsserted(() -> {
            JsonNode load = load();
            assertThat(load.path("num_reqs").intValue()).isZero();
            assertThat(load.path("num_tokens").intValue()).isLessThan(1000);
        });
    }

    @Test
    void hangingUpBeforeANonStreamingAnswerAbortsTheRequest() {
        try (RawHttp http = RawHttp.post(engine, "/v1/completions",
            "{\"prompt\":\"a very long essay\",\"max_tokens\":100000}")) {
            await().atMost(BOUND).until(() -> load().path("num_reqs").intValue() == 1);
        }

        await().atMost(BOUND).until(() -> load().path("num_reqs").intValue() == 0);
    }

    private static JsonNode load() {
        return SimEngineClient.JSON.readTree(client.get("/get_load").body()).get(0);
    }
}
