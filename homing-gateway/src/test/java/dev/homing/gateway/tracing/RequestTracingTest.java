package dev.homing.gateway.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With tracing on, an inference request is a server span holding the routing decision, each attempt at a worker a
 * client span under it, and the engine gets the attempt's trace context. Spans are read from an in-memory exporter.
 */
class RequestTracingTest {

    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"What is a "
            + "radix tree, and why does a cache-aware router keep one per model?\"}]}";
    /** W3C's own example of a caller's trace context. */
    private static final String CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String CALLER_SPAN = "00f067aa0ba902b7";
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private FakeWorker worker;

    @BeforeEach
    void startWorker() {
        worker = FakeWorker.start("m");
    }

    @AfterEach
    void stopWorker() {
        worker.close();
    }

    private RunningGateway traced(Config config) {
        return RunningGateway.start(config, Tracing.exportingTo(SimpleSpanProcessor.create(spans)));
    }

    private List<SpanData> awaitSpans(int count) {
        await().atMost(WAIT).until(() -> spans.getFinishedSpanItems().size() >= count);
        return spans.getFinishedSpanItems();
    }

    private static SpanData only(List<SpanData> all, SpanKind kind) {
        List<SpanData> ofKind = all.stream().filter(span -> span.getKind() == kind).toList();
        assertThat(ofKind).as("%s spans in %s", kind, all).hasSize(1);
        return ofKind.getFirst();
    }

    /** The span's context as a W3C header. */
    static String traceparent(SpanData span) {
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getSpanContext().getTraceFlags().asHex();
    }

    private static <T> T attribute(SpanData span, String name, AttributeKey<T> key) {
        assertThat(key.getKey()).isEqualTo(name);
        return span.getAttributes().get(key);
    }

    @Test
    void aRequestIsAServerSpanWithTheRoutingDecisionAndItsAttemptAClientSpanUnderIt() {
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker))
                .with(Settings.POLICY, "cache_aware"))) {
            assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            awaitSpans(2);
            spans.reset();

            HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT, "x-request-id", "traced-1");

            assertThat(answer.statusCode()).isEqualTo(200);
            List<SpanData> all = awaitSpans(2);
            SpanData request = only(all, SpanKind.SERVER);
            SpanData attempt = only(all, SpanKind.CLIENT);
            assertThat(request.getName()).isEqualTo("POST /v1/chat/completions");
            assertThat(attribute(request, "homing.request_id", TraceAttributes.REQUEST_ID)).isEqualTo("traced-1");
            assertThat(attribute(request, "gen_ai.request.model", TraceAttributes.MODEL)).isEqualTo("m");
            assertThat(attribute(request, "homing.policy", TraceAttributes.POLICY)).isEqualTo("cache_aware");
            assertThat(attribute(request, "homing.branch", TraceAttributes.BRANCH)).isEqualTo("hit");
            assertThat(attribute(request, "homing.match_ratio", TraceAttributes.MATCH_RATIO)).isEqualTo(1.0);
            assertThat(attribute(request, "homing.worker", TraceAttributes.WORKER)).isEqualTo(worker.url());
            assertThat(attribute(request, "homing.retries", TraceAttributes.RETRIES)).isZero();
            assertThat(attribute(request, "http.response.status_code", TraceAttributes.HTTP_STATUS)).isEqualTo(200);
            assertThat(request.getAttributes().get(TraceAttributes.HELD_MS)).as("not held").isNull();
            assertThat(request.getEvents()).extracting(event -> event.getName()).containsExactly("first_token");
            assertThat(request.getParentSpanContext().isValid()).as("a new trace").isFalse();

            assertThat(attempt.getTraceId()).isEqualTo(request.getTraceId());
            assertThat(attempt.getParentSpanId()).isEqualTo(request.getSpanId());
            assertThat(attribute(attempt, "url.full", TraceAttributes.URL_FULL))
                    .isEqualTo(worker.url() + "/v1/chat/completions");
            assertThat(attribute(attempt, "http.response.status_code", TraceAttributes.HTTP_STATUS)).isEqualTo(200);
            assertThat(attribute(attempt, "homing.outcome", TraceAttributes.OUTCOME)).isEqualTo("success");
            assertThat(attempt.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(worker.received().getLast().headers().get("traceparent"))
                    .isEqualTo(traceparent(attempt));
        }
    }

    @Test
    void aCallersTraceparentIsContinuedAndTheEngineGetsTheAttemptsContextInsteadOfTheCallers() {
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker)))) {

            gateway.post("/v1/chat/completions", CHAT, "traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01",
                    "tracestate", "vendor=opaque");

            List<SpanData> all = awaitSpans(2);
            SpanData request = only(all, SpanKind.SERVER);
            SpanData attempt = only(all, SpanKind.CLIENT);
            assertThat(request.getTraceId()).isEqualTo(CALLER_TRACE);
            assertThat(request.getParentSpanId()).isEqualTo(CALLER_SPAN);
            assertThat(request.getParentSpanContext().isRemote()).isTrue();
            var sent = worker.received().getLast().headers();
            assertThat(sent.getAll("traceparent"))
                    .containsExactly("00-" + CALLER_TRACE + "-" + attempt.getSpanId() + "-01");
            assertThat(sent.getAll("tracestate")).containsExactly("vendor=opaque");
        }
    }

    @Test
    void aCallerThatDoesNotSampleIsObeyedAndNoSpanIsExported() {
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker)))) {

            gateway.post("/v1/chat/completions", CHAT, "traceparent", "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-00");
            gateway.post("/v1/chat/completions", CHAT);

            List<SpanData> all = awaitSpans(2);
            assertThat(all).allSatisfy(span -> assertThat(span.getTraceId()).isNotEqualTo(CALLER_TRACE));
            assertThat(worker.received().getFirst().headers().get("traceparent"))
                    .startsWith("00-" + CALLER_TRACE + "-").endsWith("-00");
        }
    }

    @Test
    void aRetriedRequestHasAClientSpanPerAttemptAndCountsItsRetries() {
        FakeWorker other = FakeWorker.start("m");
        worker.behaviour(FakeWorker.Behaviour.FAIL_503);
        other.behaviour(FakeWorker.Behaviour.FAIL_503);
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker, other))
                .with(Settings.RETRY_MAX_RETRIES, 3).with(Settings.RETRY_INITIAL_BACKOFF_MS, 1L))) {

            assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(503);

            List<SpanData> all = awaitSpans(4);
            SpanData request = only(all, SpanKind.SERVER);
            List<SpanData> attempts = all.stream().filter(span -> span.getKind() == SpanKind.CLIENT).toList();
            assertThat(attempts).hasSize(3).allSatisfy(attempt -> {
                assertThat(attempt.getParentSpanId()).isEqualTo(request.getSpanId());
                assertThat(attempt.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("busy");
                assertThat(attempt.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            });
            assertThat(attempts).extracting(attempt -> attempt.getAttributes().get(TraceAttributes.RESEND_COUNT))
                    .containsExactly(null, 1L, 2L);
            List<String> sent = Stream.concat(worker.received().stream(), other.received().stream())
                    .map(received -> received.headers().get("traceparent")).toList();
            assertThat(sent).containsExactlyInAnyOrderElementsOf(attempts.stream()
                    .map(RequestTracingTest::traceparent).toList());
            assertThat(request.getAttributes().get(TraceAttributes.RETRIES)).isEqualTo(2);
            assertThat(request.getAttributes().get(TraceAttributes.HTTP_STATUS)).isEqualTo(503);
            assertThat(request.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        } finally {
            other.close();
        }
    }

    @Test
    void aRequestHeldForAnEarlierPrefillRecordsHowLongItWaited() throws IOException {
        FakeWorker other = FakeWorker.start("m");
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker, other))
                .with(Settings.POLICY, LoadAwareAffinityPolicy.NAME).with(Settings.AFFINITY_PREFILL_WAIT_MS, 200L))) {
            worker.behaviour(FakeWorker.Behaviour.HANG);
            other.behaviour(FakeWorker.Behaviour.HANG);
            String prompt = "Clause one of the contract the two requests discuss. ".repeat(150);
            String body = "{\"prompt\":\"" + prompt + "\",\"max_tokens\":2}";
            try (Socket first = gateway.openPost("/v1/completions", body)) {
                await().atMost(WAIT).until(() -> worker.received().size() + other.received().size() == 1);
                worker.behaviour(FakeWorker.Behaviour.NORMAL);
                other.behaviour(FakeWorker.Behaviour.NORMAL);

                assertThat(gateway.post("/v1/completions", "{\"prompt\":\"" + prompt + "And?\",\"max_tokens\":2}")
                        .statusCode()).isEqualTo(200);

                SpanData held = only(awaitSpans(2), SpanKind.SERVER);
                assertThat(held.getAttributes().get(TraceAttributes.POLICY)).isEqualTo(LoadAwareAffinityPolicy.NAME);
                assertThat(held.getAttributes().get(TraceAttributes.HELD_MS)).isGreaterThanOrEqualTo(200.0);
            }
        } finally {
            other.close();
        }
    }

    @Test
    void aClientThatLeavesEndsItsSpansAsDroppedAndNotAsTheWorkersFailure() throws IOException {
        worker.behaviour(FakeWorker.Behaviour.HANG);
        try (RunningGateway gateway = traced(RunningGateway.config(List.of(worker)))) {
            try (Socket leaving = gateway.openPost("/v1/chat/completions", CHAT)) {
                await().atMost(WAIT).until(() -> worker.received().size() == 1);
            }

            List<SpanData> all = awaitSpans(2);
            SpanData request = only(all, SpanKind.SERVER);
            SpanData attempt = only(all, SpanKind.CLIENT);
            assertThat(request.getAttributes().get(TraceAttributes.HTTP_STATUS)).isEqualTo(499);
            assertThat(request.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(attempt.getAttributes().get(TraceAttributes.OUTCOME)).isEqualTo("dropped");
            assertThat(attempt.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        }
    }

    @Test
    void withTracingOffTheCallersTraceContextPassesThroughUnchangedAndNoneIsMadeUp() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker)))) {
            String caller = "00-" + CALLER_TRACE + "-" + CALLER_SPAN + "-01";

            gateway.post("/v1/chat/completions", CHAT, "traceparent", caller);
            gateway.post("/v1/chat/completions", CHAT);

            assertThat(worker.received()).hasSize(2);
            assertThat(worker.received().get(0).headers().getAll("traceparent")).containsExactly(caller);
            assertThat(worker.received().get(1).headers().contains("traceparent")).isFalse();
        }
    }
}
