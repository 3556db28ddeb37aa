package dev.homing.gateway.proxy;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Every way a request can end gives its worker's in-flight slot back, once. */
class InFlightAccountingTest {

    private static final String STREAM_BODY =
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

    /** The default request timeout: no request here ends by it, however slow the machine. */
    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("model-a",
            config -> config.with(Settings.POLICY, "round_robin"));

    /** A 2 s request timeout, only for the tests of that timeout. */
    @RegisterExtension
    static final OneWorkerGateway timing = new OneWorkerGateway("model-a",
            config -> config.with(Settings.POLICY, "round_robin").with(Settings.REQUEST_TIMEOUT_SECS, 2L));

    /** Whatever the way a test's request ended, its in-flight slot comes back. */
    @AfterEach
    void nothingIsLeftInFlight() {
        setup.gateway().awaitNothingInFlight();
        timing.gateway().awaitNothingInFlight();
    }

    /** A streamed chat completion through {@code to}'s gateway to its worker behaving as {@code behaviour}. */
    private static HttpResponse<String> streamTo(OneWorkerGateway to, Behaviour behaviour) {
        to.worker().behaviour(behaviour);
        return to.gateway().post("/v1/chat/completions", STREAM_BODY);
    }

    @Test
    void aSuccessfulRequestLeavesNothingInFlight() {
        assertThat(streamTo(setup, Behaviour.NORMAL).statusCode()).isEqualTo(200);
    }

    @Test
    void anUpstream500IsRelayedAndLeavesNothingInFlight() {
        HttpResponse<String> response = streamTo(setup, Behaviour.FAIL_500);

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).contains("boom");
    }

    @Test
    void anUpstreamThatNeverAnswersTimesOutWith504AndLeavesNothingInFlight() {
        HttpResponse<String> response = streamTo(timing, Behaviour.HANG);

        assertThat(response.statusCode()).isEqualTo(504);
        assertThat(response.headers().firstValue("x-smg-error-code")).hasValue("call_upstream_timeout");
    }

    @Test
    void aStreamStillRunningAtTheRequestTimeoutEndsWithATimeoutEvent() {
        HttpResponse<String> response = streamTo(timing, Behaviour.ENDLESS_STREAM);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("data: {\"choices\"")
                .endsWith("data: {\"error\":{\"message\":\"The worker did not finish within 2 s\","
                        + "\"type\":\"server_error\",\"param\":null,\"code\":\"call_upstream_timeout\"}}\n\n");
    }

    @Test
    void aClientThatDisconnectsMidStreamCancelsTheUpstreamAndLeavesNothingInFlight() throws Exception {
        setup.worker().behaviour(Behaviour.ENDLESS_STREAM);
        int cutBefore = setup.worker().streamsCutByClient();

        try (Socket socket = setup.gateway().openPost("/v1/chat/completions", STREAM_BODY)) {
            InputStream in = socket.getInputStream();
            String head = readUntil(in, "data:");
            assertThat(head).startsWith("HTTP/1.1 200");
            assertThat(setup.gateway().inFlight()).isEqualTo(1);
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> setup.worker().streamsCutByClient() == cutBefore + 1);
    }

    @Test
    void aClientThatStopsReadingPausesTheUpstream() throws Exception {
        setup.worker().behaviour(Behaviour.FLOOD);

        try (Socket socket = setup.gateway().openPost("/v1/chat/completions", STREAM_BODY)) {
            readUntil(socket.getInputStream(), "data:");
            // The client reads no further: the worker's own write queue must fill, which only happens if the
            // gateway stopped reading from it instead of buffering without bound.
            await().atMost(Duration.ofSeconds(30)).until(setup.worker()::sawBackpressure);
        }
    }

    @Test
    void aWorkerThatRefusesConnectionsGets502AndLeavesNothingInFlight() {
        FakeWorker gone = FakeWorker.start("model-b");
        // One attempt: a retry would find the benched worker gone and answer 503 (see RetryAndBreakerWiringTest).
        try (RunningGateway other = RunningGateway.start(RunningGateway.config(List.of(gone))
                .with(Settings.POLICY, "round_robin").with(Settings.DISABLE_RETRIES, true))) {
            gone.close();

            HttpResponse<String> response = other.post("/generate", "{\"text\":\"hi\"}");

            assertThat(response.statusCode()).isEqualTo(502);
            // Refused at connect, or, on a loaded machine, sent on a pooled connection from the health checks whose
            // closing the gateway has not read yet and reset there: both are the worker failing, with nothing left.
            assertThat(response.headers().firstValue("x-smg-error-code").orElseThrow())
                    .isIn("call_upstream_connection_failed", "call_upstream_failed");
            other.awaitNothingInFlight();
        }
    }

    @Test
    void aRequestWhoseWorkerRefusesTheConnectionMovesToAnotherWorkerAndTheDeadOneIsBenched() {
        FakeWorker dead = FakeWorker.start("model-c");
        try (FakeWorker alive = FakeWorker.start("model-c");
             RunningGateway other = RunningGateway.start(RunningGateway.config(List.of(dead, alive))
                     .with(Settings.POLICY, "round_robin"))) {
            dead.close();

            for (int i = 0; i < 4; i++) {
                HttpResponse<String> response = other.post("/generate", "{\"text\":\"hi\"}");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("x-worker")).hasValue(alive.url());
            }
            assertThat(other.gateway().registry().find(dead.url()).healthy()).isFalse();
            other.awaitNothingInFlight();
        }
    }

    private static String readUntil(InputStream in, String marker) throws Exception {
        StringBuilder seen = new StringBuilder();
        byte[] buf = new byte[1024];
        while (!seen.toString().contains(marker)) {
            int n = in.read(buf);
            if (n < 0) {
                break;
            }
            seen.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
        }
        return seen.toString();
    }
}
