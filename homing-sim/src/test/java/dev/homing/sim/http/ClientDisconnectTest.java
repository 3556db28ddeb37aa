package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/** A client that hangs up aborts its request: the slot and the KV it held are freed. */
class ClientDisconnectTest {
    /** Bounds only a failure reaches: with both cores busy beside other builds, noticing a hang-up can take seconds. */
    private static final Duration BOUND = Duration.ofSeconds(30);

    /** Slow enough that the long answer is still running when the client leaves. */
    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.atTimeScale(10);

    @Test
    void hangingUpMidStreamAbortsTheRequestAndFreesItsTokens() {
        try (RawHttp http = RawHttp.post(engine.server(), "/generate",
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
        try (RawHttp http = RawHttp.post(engine.server(), "/v1/completions",
            "{\"prompt\":\"a very long essay\",\"max_tokens\":100000}")) {
            await().atMost(BOUND).until(() -> load().path("num_reqs").intValue() == 1);
        }

        await().atMost(BOUND).until(() -> load().path("num_reqs").intValue() == 0);
    }

    private static JsonNode load() {
        return engine.getJson("/get_load").get(0);
    }
}
