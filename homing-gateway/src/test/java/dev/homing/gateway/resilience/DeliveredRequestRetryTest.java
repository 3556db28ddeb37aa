package dev.homing.gateway.resilience;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.FakeWorker.Behaviour;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A request a worker has received whole may be running there: against workers that read the whole body and close the
 * connection without answering (an engine that died, or cut the request, midway), over loopback HTTP.
 */
class DeliveredRequestRetryTest {

    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String RETRIES = "smg_worker_retries_total{endpoint=\"/v1/chat/completions\",reason=";
    private static final String GIVE_UPS = "homing_retry_give_ups_total{endpoint=\"/v1/chat/completions\",reason=";

    @RegisterExtension
    final Closing closing = new Closing();

    private FakeWorker closingAfterBody() {
        FakeWorker worker = closing.add(FakeWorker.start("model-a"));
        worker.behaviour(Behaviour.CLOSE_AFTER_BODY);
        return worker;
    }

    private RunningGateway gateway(Config config) {
        return closing.add(RunningGateway.start(config));
    }

    private static void assertUpstreamFailure(HttpResponse<String> response) {
        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(response.body()).startsWith("{\"error\":{\"message\":\"Request to worker ")
                .contains("\"code\":\"call_upstream_failed\"").doesNotContain("Exception");
    }

    @Test
    void aWorkerThatReadTheRequestAndClosedIsNotSentItAgainWhenItIsTheOnlyOne() {
        FakeWorker worker = closingAfterBody();
        RunningGateway gateway = gateway(RunningGateway.config(List.of(worker))
                .with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertUpstreamFailure(response);
        gateway.awaitNothingInFlight();
        assertThat(worker.received()).as("deliveries").hasSize(1);
        assertThat(gateway.metric(GIVE_UPS + "\"no_other_worker\"}")).isEqualTo(1);
        assertThat(gateway.scrapeMetrics()).doesNotContain(RETRIES);
    }

    @Test
    void aDeliveredRequestIsRetriedOnceOnAnotherWorkerAndNeverReachesAWorkerTwice() {
        FakeWorker first = closingAfterBody();
        FakeWorker second = closingAfterBody();
        RunningGateway gateway = gateway(RunningGateway.config(List.of(first, second))
                .with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertUpstreamFailure(response);
        gateway.awaitNothingInFlight();
        assertThat(first.received()).as("deliveries to the first worker").hasSize(1);
        assertThat(second.received()).as("deliveries to the second worker").hasSize(1);
        assertThat(gateway.metric(RETRIES + "\"delivered_no_answer\",worker_type=\"regular\"}")).isEqualTo(1);
        assertThat(gateway.metric(GIVE_UPS + "\"delivered_retries_exhausted\"}")).isEqualTo(1);
    }

    @Test
    void withNoResendOfADeliveredRequestAllowedItReachesOneWorkerOnly() {
        FakeWorker first = closingAfterBody();
        FakeWorker second = closingAfterBody();
        RunningGateway gateway = gateway(RunningGateway.config(List.of(first, second))
                .with(Settings.RETRY_MAX_DELIVERED, 0));

        HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);

        assertUpstreamFailure(response);
        gateway.awaitNothingInFlight();
        assertThat(first.received().size() + second.received().size()).as("deliveries").isEqualTo(1);
        assertThat(gateway.metric(GIVE_UPS + "\"delivered_retries_exhausted\"}")).isEqualTo(1);
    }

    @Test
    void aDeliveredRequestRetriedElsewhereIsAnsweredByTheWorkerThatAnswers() {
        FakeWorker closed = closingAfterBody();
        FakeWorker healthy = closing.add(FakeWorker.start("model-a"));
        RunningGateway gateway = gateway(RunningGateway.config(List.of(closed, healthy))
                .with(Settings.POLICY, "round_robin").with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L));

        for (int i = 0; i < 4; i++) {
            HttpResponse<String> response = gateway.post("/v1/chat/completions", CHAT);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("x-worker")).hasValue(healthy.url());
        }

        gateway.awaitNothingInFlight();
        assertThat(closed.received()).isNotEmpty();
        assertThat(gateway.metric(RETRIES + "\"delivered_no_answer\",worker_type=\"regular\"}"))
                .isEqualTo(closed.received().size());
    }
}
