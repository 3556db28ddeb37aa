package dev.homing.gateway.resilience;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Retries and circuit breakers on the request path, against scripted workers over loopback HTTP. */
class RetryAndBreakerWiringTest {

    private static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String STREAM_BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
    private static final String RETRIES =
            "smg_worker_retries_total{endpoint=\"/v1/chat/completions\",reason=\"retryable_status\","
                    + "worker_type=\"regular\"}";

    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : started.reversed()) {
            c.close();
        }
    }

    private FakeWorker worker(Behaviour behaviour) {
        FakeWorker worker = FakeWorker.start("model-a");
        worker.behaviour(behaviour);
        started.add(worker);
        return worker;
    }

    private RunningGateway gateway(Config config) {
        RunningGateway gateway = RunningGateway.start(config);
        started.add(gateway);
        return gateway;
    }

    /** A gateway in front of {@code workers}, taking them in turn. */
    private static Config roundRobin(FakeWorker... workers) {
        return RunningGateway.config(List.of(workers)).with(Settings.POLICY, "round_robin");
    }

    private static HttpResponse<String> chat(RunningGateway gateway) {
        return gateway.post("/v1/chat/completions", BODY);
    }

    /** Sends {@code count} requests one after the other, each answered with {@code status}. */
    private static void assertEachAnswered(RunningGateway gateway, int count, int status) {
        for (int i = 0; i < count; i++) {
            assertThat(chat(gateway).statusCode()).isEqualTo(status);
        }
    }

    /** {@code worker}'s circuit is closed, and the gateway has no series named {@code metric} at all. */
    private static void assertClosedAndNoMetric(RunningGateway gateway, FakeWorker worker, String metric) {
        assertThat(circuitOf(gateway, worker)).isEqualTo(CircuitBreaker.State.CLOSED);
        assertThat(gateway.scrapeMetrics()).doesNotContain(metric);
    }

    private static void awaitCircuit(RunningGateway gateway, FakeWorker worker, CircuitBreaker.State state) {
        await().atMost(Duration.ofSeconds(30)).until(() -> circuitOf(gateway, worker) == state);
    }

    private static CircuitBreaker.State circuitOf(RunningGateway gateway, FakeWorker worker) {
        String id = gateway.gateway().registry().find(worker.url()).id();
        return gateway.gateway().breakers().of(id).state();
    }

    @Test
    void aWorkerAnswering503IsRetriedOnAnotherWorkerAndTheClientGets200() {
        FakeWorker failing = worker(Behaviour.FAIL_503);
        FakeWorker healthy = worker(Behaviour.NORMAL);
        RunningGateway gateway = gateway(roundRobin(failing, healthy));

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> response = chat(gateway);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("x-worker")).hasValue(healthy.url());
        }

        assertThat(failing.received()).isNotEmpty();
        assertThat(gateway.scrapeMetrics()).contains(RETRIES + " " + failing.received().size() + ".0");
        gateway.awaitNothingInFlight();
    }

    @Test
    void aStreamIsRetriedBeforeItsFirstByteAndArrivesWhole() {
        RunningGateway gateway = gateway(roundRobin(worker(Behaviour.FAIL_503), worker(Behaviour.NORMAL)));

        for (int i = 0; i < 2; i++) {
            HttpResponse<String> response = gateway.post("/v1/chat/completions", STREAM_BODY);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
        }
        gateway.awaitNothingInFlight();
    }

    @Test
    void whenEveryAttemptFailsTheLastAnswerIsRelayedAndTheRequestCountsAsExhausted() {
        FakeWorker first = worker(Behaviour.FAIL_503);
        FakeWorker second = worker(Behaviour.FAIL_503);
        RunningGateway gateway = gateway(RunningGateway.config(List.of(first, second))
                .with(Settings.RETRY_MAX_RETRIES, 3)
                .with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        HttpResponse<String> response = chat(gateway);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("overloaded");
        assertThat(first.received().size() + second.received().size()).isEqualTo(3);
        assertThat(first.received()).as("a retry avoids the worker that just failed").isNotEmpty();
        assertThat(second.received()).isNotEmpty();
        String metrics = gateway.scrapeMetrics();
        assertThat(metrics).contains("smg_worker_retries_exhausted_total{endpoint="
                + "\"/v1/chat/completions\",worker_type=\"regular\"} 1.0");
        assertThat(metrics).contains("homing_retry_give_ups_total{endpoint=\"/v1/chat/completions\","
                + "reason=\"retries_exhausted\"} 1.0");
        gateway.awaitNothingInFlight();
    }

    @Test
    void a503IsBackpressureThatIsRetriedElsewhereButNeverOpensTheCircuit() {
        FakeWorker busy = worker(Behaviour.FAIL_503);
        FakeWorker healthy = worker(Behaviour.NORMAL);
        RunningGateway gateway = gateway(roundRobin(busy, healthy).with(Settings.CB_FAILURE_THRESHOLD, 2));

        assertEachAnswered(gateway, 8, 200);

        assertThat(busy.received()).as("the busy worker kept being asked").hasSizeGreaterThanOrEqualTo(2);
        assertClosedAndNoMetric(gateway, busy, "smg_worker_cb_transitions_total{");
        gateway.awaitNothingInFlight();
    }

    @Test
    void aClient4xxIsNotRetriedAndDoesNotOpenTheCircuit() {
        FakeWorker worker = worker(Behaviour.BAD_REQUEST);
        RunningGateway gateway = gateway(RunningGateway.config(List.of(worker)).with(Settings.CB_FAILURE_THRESHOLD, 2));

        assertEachAnswered(gateway, 5, 400);

        assertThat(worker.received()).hasSize(5);
        assertClosedAndNoMetric(gateway, worker, "smg_worker_retries_total{");
        gateway.awaitNothingInFlight();
    }

    /** Sends requests until {@code broken}'s circuit has left closed; 40 at most. */
    private static void sendUntilTheCircuitOpens(RunningGateway gateway, FakeWorker broken) {
        for (int i = 0; i < 40 && circuitOf(gateway, broken) == CircuitBreaker.State.CLOSED; i++) {
            chat(gateway);
        }
    }

    @Test
    void tenConsecutive5xxOpenACircuitThatGetsNoTrafficWhileOpen() {
        FakeWorker broken = worker(Behaviour.FAIL_500);
        FakeWorker healthy = worker(Behaviour.NORMAL);
        // Open far longer than the test runs, so no request below can meet a half-open circuit however slow it is.
        RunningGateway gateway = gateway(roundRobin(broken, healthy)
                .with(Settings.DISABLE_RETRIES, true).with(Settings.CB_TIMEOUT_DURATION_SECS, 3_600L));

        sendUntilTheCircuitOpens(gateway, broken);
        assertThat(circuitOf(gateway, broken)).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(broken.received()).hasSize(10);

        broken.behaviour(Behaviour.NORMAL);
        broken.clear();
        assertEachAnswered(gateway, 6, 200);
        assertThat(broken.received()).isEmpty();
        assertThat(circuitOf(gateway, broken)).isEqualTo(CircuitBreaker.State.OPEN);
        assertThat(gateway.scrapeMetrics()).contains("smg_worker_cb_transitions_total{from=\"closed\",to=\"open\","
                + "worker=\"" + broken.url() + "\"} 1.0");
        gateway.awaitNothingInFlight();
    }

    @Test
    void anOpenCircuitTurnsHalfOpenAfterItsTimeAndOneProbeClosesIt() {
        FakeWorker broken = worker(Behaviour.FAIL_500);
        FakeWorker healthy = worker(Behaviour.NORMAL);
        RunningGateway gateway = gateway(roundRobin(broken, healthy)
                .with(Settings.DISABLE_RETRIES, true).with(Settings.CB_TIMEOUT_DURATION_SECS, 1L)
                .with(Settings.CB_SUCCESS_THRESHOLD, 1));

        // Stops at the first request after the circuit opened: it may already read half-open on a slow machine,
        // but no request has been sent since, so none can have probed it.
        sendUntilTheCircuitOpens(gateway, broken);
        assertThat(broken.received()).hasSize(10);

        broken.behaviour(Behaviour.NORMAL);
        broken.clear();
        awaitCircuit(gateway, broken, CircuitBreaker.State.HALF_OPEN);
        for (int i = 0; i < 4 && broken.received().isEmpty(); i++) {
            assertThat(chat(gateway).statusCode()).isEqualTo(200);
        }
        assertThat(broken.received()).hasSize(1);
        // The client may hold the whole body a moment before the worker's end reaches the gateway.
        awaitCircuit(gateway, broken, CircuitBreaker.State.CLOSED);
        String metrics = gateway.scrapeMetrics();
        assertThat(metrics).contains("smg_worker_cb_transitions_total{from=\"closed\",to=\"open\",worker=\""
                + broken.url() + "\"} 1.0");
        assertThat(metrics).contains("smg_worker_cb_state{worker=\"" + broken.url() + "\"} 0.0");
        gateway.awaitNothingInFlight();
    }

    @Test
    void withNoAvailableWorkerTheClientGets503AtOnceNotAfterTheBackoffSum() {
        FakeWorker worker = worker(Behaviour.FAIL_500);
        // Backoff sum 200 + 300 + 450 + 675 ms; the circuit opens on the first failure.
        RunningGateway gateway = gateway(RunningGateway.config(List.of(worker)).with(Settings.CB_FAILURE_THRESHOLD, 1)
                .with(Settings.RETRY_INITIAL_BACKOFF_MS, 200L).with(Settings.RETRY_JITTER_FACTOR, 0.0));

        // Judged by the backoffs the gateway took (each one counted as a retry), not by a clock: a busy machine
        // can make any request slow.
        HttpResponse<String> first = chat(gateway);
        assertThat(first.statusCode()).isEqualTo(503);
        assertThat(first.headers().firstValue("x-smg-error-code")).hasValue("no_available_workers");
        assertThat(gateway.metric(RETRIES)).as("one backoff, then no worker left").isEqualTo(1.0);

        HttpResponse<String> second = chat(gateway);
        assertThat(second.statusCode()).isEqualTo(503);
        assertThat(gateway.metric(RETRIES)).as("circuit open: nothing to wait for").isEqualTo(1.0);
        assertThat(worker.received()).hasSize(1);
        gateway.awaitNothingInFlight();
    }

    @Test
    void aRequestShedBecauseTheOnlyProbePlaceIsTakenGets503WorkersAtCapacityWithRetryAfter() throws IOException {
        FakeWorker worker = worker(Behaviour.FAIL_500);
        RunningGateway gateway = gateway(RunningGateway.config(List.of(worker)).with(Settings.CB_FAILURE_THRESHOLD, 1)
                .with(Settings.CB_SUCCESS_THRESHOLD, 1).with(Settings.CB_TIMEOUT_DURATION_SECS, 1L)
                .with(Settings.DISABLE_RETRIES, true));
        assertThat(chat(gateway).statusCode()).isEqualTo(500);
        awaitCircuit(gateway, worker, CircuitBreaker.State.HALF_OPEN);
        worker.behaviour(Behaviour.HANG);

        try (Socket probe = gateway.openPost("/v1/chat/completions", BODY)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> worker.received().size() == 2);
            HttpResponse<String> shed = chat(gateway);

            assertThat(shed.statusCode()).isEqualTo(503);
            assertThat(shed.headers().firstValue("x-smg-error-code")).hasValue("workers_at_capacity");
            assertThat(shed.headers().firstValue("retry-after")).hasValue("1");
            assertThat(worker.received()).as("the probe alone reached the worker").hasSize(2);
        }
        gateway.awaitNothingInFlight();
    }

    @Test
    void aStreamBrokenAfterItsFirstByteEndsWithAnErrorEventTheClientCanSee() {
        FakeWorker worker = worker(Behaviour.BROKEN_STREAM);
        RunningGateway gateway = gateway(RunningGateway.config(List.of(worker)));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", STREAM_BODY);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith(FakeWorker.STREAM_EVENTS.getFirst())
                .endsWith("data: {\"error\":{\"message\":\"The worker broke off the stream\","
                        + "\"type\":\"server_error\",\"param\":null,\"code\":\"upstream_stream_failed\"}}\n\n");
        assertThat(worker.received()).hasSize(1);
        gateway.awaitNothingInFlight();
    }
}
