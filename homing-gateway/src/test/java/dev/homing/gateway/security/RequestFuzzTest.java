package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.proxy.BadRequestException;
import dev.homing.gateway.proxy.InferenceRoute;
import dev.homing.gateway.proxy.RoutingText;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Seeded random request bodies against the request parsing path: the sniffer directly (fast, many cases), then the
 * whole gateway over HTTP (a minimum of cases, then more while a time budget lasts). Nothing may crash the sniffer with
 * anything but a {@link BadRequestException}, and the gateway may never answer 5xx to a body.
 */
class RequestFuzzTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    /** Sniffer cases per seed: about a second on a slow machine. */
    private static final int SNIFF_CASES = 5_000;
    /**
     * Gateway cases: at least the minimum, however slow the machine; past it, up to the maximum while the time budget
     * lasts, which keeps CI time bounded on 2 cores.
     */
    private static final int GATEWAY_MIN_CASES = 200;
    private static final int GATEWAY_MAX_CASES = 1_000;
    private static final Duration GATEWAY_BUDGET = Duration.ofSeconds(10);

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void theSnifferAnswersEveryBodyWithAResultOrABadRequest(long seed) {
        BodyMutator mutator = new BodyMutator(seed);
        int refused = 0;
        for (int i = 0; i < SNIFF_CASES; i++) {
            InferenceRoute route = mutator.route();
            byte[] body = mutator.next(route);
            try {
                RoutingText.sniff(route, body);
            } catch (BadRequestException e) {
                refused++;
            } catch (Throwable t) {
                fail("seed %d case %d (%s): %s on %s", seed, i, route, t, preview(body));
            }
        }
        // Both outcomes occur, or the mutator is not exercising anything.
        assertThat(refused).isBetween(SNIFF_CASES / 20, SNIFF_CASES - SNIFF_CASES / 20);
    }

    @Test
    void theGatewayNeverAnswers5xxToARandomBodyAndStaysUsable() {
        try (FakeWorker a = FakeWorker.start("model-a"); FakeWorker b = FakeWorker.start("model-b");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(a, b))
                     .with(Settings.POLICY, "round_robin").with(Settings.MAX_PAYLOAD_SIZE, 64 * 1024L))) {
            BodyMutator mutator = new BodyMutator(42);
            long deadline = System.nanoTime() + GATEWAY_BUDGET.toNanos();
            int sent = 0;
            while (sent < GATEWAY_MIN_CASES || (sent < GATEWAY_MAX_CASES && System.nanoTime() < deadline)) {
                InferenceRoute route = mutator.route();
                byte[] body = mutator.next(route);
                HttpResponse<String> r = gateway.send(HttpRequest.newBuilder(URI.create(gateway.url(route.path())))
                        .timeout(Duration.ofSeconds(20)).header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
                sent++;
                assertThat(r.statusCode()).as("case %d (%s) %s -> %s", sent, route, preview(body), r.body())
                        .isLessThan(500);
                if (r.statusCode() >= 400) {
                    JsonNode error = JSON.readTree(r.body()).path("error");
                    assertThat(error.path("code").isString()).as("error shape of %s", r.body()).isTrue();
                }
            }
            assertThat(gateway.post("/v1/chat/completions",
                    "{\"model\":\"model-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").statusCode())
                    .isEqualTo(200);
            // A slot is released when the worker's answer ends, which may be just after the client has read it.
            gateway.awaitNothingInFlight();
        }
    }

    private static String preview(byte[] body) {
        String s = new String(body, 0, Math.min(body.length, 160), StandardCharsets.UTF_8);
        return body.length + " bytes: " + s;
    }
}
