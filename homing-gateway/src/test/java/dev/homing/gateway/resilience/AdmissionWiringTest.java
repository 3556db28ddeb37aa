package dev.homing.gateway.resilience;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Admission control on the inference routes, over loopback HTTP: a strict cap, a FIFO queue, 429 and 503. */
class AdmissionWiringTest {

    private static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /**
     * The queue and request timeouts of the tests that need neither to fire: bounds only a failure reaches, as a busy
     * machine can take seconds over what the tests wait for (a waiter admitted, a stream held).
     */
    private static final long NEVER_QUEUE_TIMEOUT_SECS = 30;
    private static final long NEVER_REQUEST_TIMEOUT_SECS = 60;

    private FakeWorker worker;
    private RunningGateway gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        worker.close();
    }

    private void start(Behaviour behaviour, int maxConcurrent, int queueSize) {
        start(behaviour, maxConcurrent, queueSize, null, NEVER_QUEUE_TIMEOUT_SECS, NEVER_REQUEST_TIMEOUT_SECS);
    }

    private void start(Behaviour behaviour, int maxConcurrent, int queueSize, Integer tokensPerSecond,
                       long queueTimeoutSecs, long requestTimeoutSecs) {
        worker = FakeWorker.start("model-a");
        worker.behaviour(behaviour);
        gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                .with(Settings.MAX_CONCURRENT_REQUESTS, maxConcurrent)
                .with(Settings.QUEUE_SIZE, queueSize).with(Settings.QUEUE_TIMEOUT_SECS, queueTimeoutSecs)
                .with(Settings.REQUEST_TIMEOUT_SECS, requestTimeoutSecs)
                .with(Settings.RATE_LIMIT_TOKENS_PER_SECOND, tokensPerSecond));
    }

    private CompletableFuture<HttpResponse<String>> postAsync(List<Integer> answeredInOrder) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(gateway.url("/v1/chat/completions")))
                .timeout(Duration.ofSeconds(90)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
        return CLIENT.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
            if (r != null) {
                answeredInOrder.add(r.statusCode());
            }
        });
    }

    /** Sends three requests at once; each must be answered 200, by the worker. */
    private void assertThreeRequestsSentAtOnceAllAnswered() {
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            responses.add(postAsync(order));
        }

        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertThat(response.join().statusCode()).isEqualTo(200);
        }
        assertThat(worker.received()).hasSize(3);
    }

    /** Sends a request that takes the only permit and hangs at the worker, and waits until the worker has it. */
    private Socket holdTheOnlyPermit() throws IOException {
        Socket holder = gateway.openPost("/v1/chat/completions", BODY);
        await().atMost(Duration.ofSeconds(30)).until(() -> worker.received().size() == 1);
        return holder;
    }

    /** Waits until a request has joined the queue, not merely been sent. */
    private void awaitQueued() {
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.scrapeMetrics()
                .contains("smg_http_rate_limit_total{result=\"queued\"} 1.0"));
    }

    @Test
    void aFullQueueAnswers429AtOnceAndItsWaiterIsAdmittedWhenThePermitComesBack() throws IOException {
        // Neither timeout may fire: the queue stays full for as long as the test takes to send the third request.
        start(Behaviour.HANG, 1, 1);
        List<Integer> order = new CopyOnWriteArrayList<>();

        CompletableFuture<HttpResponse<String>> waiter;
        try (Socket holder = holdTheOnlyPermit()) {
            waiter = postAsync(order);
            // Queued, not merely sent: else the third request could take the queue's place and the waiter be refused.
            awaitQueued();
            HttpResponse<String> refused = postAsync(order).join();

            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
            assertThat(refused.headers().firstValue("x-smg-error-code")).hasValue("rate_limit_exceeded");
            assertThat(waiter).as("the waiter still waits").isNotDone();
            worker.behaviour(Behaviour.NORMAL);
        }

        // The holder's client left: its permit goes to the waiter.
        assertThat(waiter.join().statusCode()).isEqualTo(200);
        assertThat(order).containsExactly(429, 200);
        assertThat(worker.received()).hasSize(2);
        assertThat(gateway.post("/v1/chat/completions", BODY).statusCode()).as("every permit came back")
                .isEqualTo(200);
        gateway.awaitNothingInFlight();
    }

    @Test
    void anOverdueWaiterAnswers503WhileTheHolderStillHoldsItsPermit() throws IOException {
        // The queue timeout is what is tested; the holder is ended by the test, not by a request timeout racing it.
        start(Behaviour.HANG, 1, 1, null, 2, NEVER_REQUEST_TIMEOUT_SECS);

        try (Socket holder = holdTheOnlyPermit()) {
            HttpResponse<String> timedOut = postAsync(new CopyOnWriteArrayList<>()).join();

            assertThat(timedOut.statusCode()).isEqualTo(503);
            assertThat(timedOut.headers().firstValue("retry-after")).isPresent();
            assertThat(timedOut.headers().firstValue("x-smg-error-code")).as("not an outage's code")
                    .hasValue("queue_timeout");
            assertThat(gateway.inFlight()).as("the holder is still at the worker").isEqualTo(1);
            assertThat(worker.received()).hasSize(1);
            worker.behaviour(Behaviour.NORMAL);
        }

        // The holder's client left; its permit comes back once the gateway has seen it go.
        await().atMost(Duration.ofSeconds(30)).until(
                () -> gateway.post("/v1/chat/completions", BODY).statusCode() == 200);
        gateway.awaitNothingInFlight();
    }

    @Test
    void waitingRequestsAreAdmittedOneAtATimeAsPermitsComeBack() {
        start(Behaviour.SLOW, 1, 5);
        assertThreeRequestsSentAtOnceAllAnswered();
        assertThat(gateway.scrapeMetrics()).contains("smg_http_rate_limit_total{result=\"allowed\"} 3.0");
        gateway.awaitNothingInFlight();
    }

    @Test
    void withARateLimitWaitingRequestsAreAdmittedAsTokensComeDue() {
        // One token in the bucket, refilled at five a second: the second and third requests wait for tokens, which
        // the gateway's pump timer hands out well within the queue timeout.
        start(Behaviour.NORMAL, 1, 5, 5, NEVER_QUEUE_TIMEOUT_SECS, NEVER_REQUEST_TIMEOUT_SECS);
        assertThreeRequestsSentAtOnceAllAnswered();
        gateway.awaitNothingInFlight();
    }

    @Test
    void aClientThatLeavesMidStreamGivesItsPermitBack() throws Exception {
        start(Behaviour.ENDLESS_STREAM, 1, 0);
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";

        try (Socket socket = gateway.openPost("/v1/chat/completions", body)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> worker.received().size() == 1);
            assertThat(gateway.post("/v1/chat/completions", BODY).statusCode()).as("the cap is taken")
                    .isEqualTo(429);
        }

        worker.behaviour(Behaviour.NORMAL);
        await().atMost(Duration.ofSeconds(30)).until(
                () -> gateway.post("/v1/chat/completions", BODY).statusCode() == 200);
        gateway.awaitNothingInFlight();
    }
}
