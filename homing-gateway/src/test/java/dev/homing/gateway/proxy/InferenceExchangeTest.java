package dev.homing.gateway.proxy;

import dev.homing.config.Settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The exchange owns an inference request from its admission to its record: a client that leaves is recorded once. */
class InferenceExchangeTest {

    private static final String STREAM_BODY =
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true}";
    private static final String CLIENT_GONE =
            "smg_http_responses_total{error_code=\"client_disconnected\",status_code=\"499\"} 1.0";

    private final FakeWorker worker = FakeWorker.start("model-a");
    private RunningGateway gateway;

    @AfterEach
    void stop() {
        gateway.close();
        worker.close();
    }

    @Test
    void aClientThatLeavesMidStreamIsRecordedOnceAsDisconnected() throws Exception {
        gateway = RunningGateway.start(RunningGateway.config(List.of(worker)));
        worker.behaviour(FakeWorker.Behaviour.ENDLESS_STREAM);

        try (Socket socket = gateway.openPost("/v1/chat/completions", STREAM_BODY)) {
            assertThat(socket.getInputStream().read()).as("the answer's head is out").isNotNegative();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.scrapeMetrics().contains(CLIENT_GONE));
        assertThat(gateway.scrapeMetrics())
                .doesNotContain("smg_http_responses_total{error_code=\"\",status_code=\"200\"}");
        gateway.awaitNothingInFlight();
    }

    @Test
    void aClientThatLeavesWhileWaitingForAdmissionGivesItsPlaceUpAndIsRecordedOnce() throws Exception {
        gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                .with(Settings.MAX_CONCURRENT_REQUESTS, 1).with(Settings.QUEUE_SIZE, 1)
                .with(Settings.QUEUE_TIMEOUT_SECS, 30L).with(Settings.REQUEST_TIMEOUT_SECS, 30L));
        worker.behaviour(FakeWorker.Behaviour.HANG);

        try (Socket holder = gateway.openPost("/v1/chat/completions", STREAM_BODY)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> worker.received().size() == 1);
            try (Socket waiter = gateway.openPost("/v1/chat/completions", STREAM_BODY)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.scrapeMetrics()
                        .contains("smg_http_rate_limit_total{result=\"queued\"} 1.0"));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.scrapeMetrics().contains(CLIENT_GONE));

            // Its place in the queue of one is free again: the next request waits rather than being refused.
            try (Socket next = gateway.openPost("/v1/chat/completions", STREAM_BODY)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.scrapeMetrics()
                        .contains("smg_http_rate_limit_total{result=\"queued\"} 2.0"));
                assertThat(gateway.scrapeMetrics()).doesNotContain("result=\"rejected\"");
            }
        }
        gateway.awaitNothingInFlight();
    }
}
