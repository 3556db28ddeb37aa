package dev.homing.gateway.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --enable-trace} end to end: the gateway's exporter posts OTLP/HTTP to a receiver on loopback (this test's,
 * reading what arrives with the protocol's own classes), in front of a simulated engine that records the trace
 * context each request brought.
 */
class OtlpExportTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final List<ExportTraceServiceRequest> exports = new CopyOnWriteArrayList<>();
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    private HttpServer receiver;
    private SimEngineServer engine;

    @BeforeEach
    void start() throws Exception {
        receiver = TestVertx.get().createHttpServer().requestHandler(this::receive);
        receiver.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        engine = SimEngineServer.start(TestVertx.get(), SimEngines.options(SimEngines.config()));
    }

    @AfterEach
    void stop() throws Exception {
        engine.close();
        receiver.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** An OTLP/HTTP trace receiver: protobuf in, an empty success out. */
    private void receive(HttpServerRequest request) {
        if (request.method() != HttpMethod.POST || !request.path().equals("/v1/traces")) {
            request.response().setStatusCode(404).end();
            return;
        }
        request.body().onSuccess(body -> {
            try {
                exports.add(ExportTraceServiceRequest.parseFrom(body.getBytes()));
                contentTypes.add(request.getHeader("content-type"));
                request.response().putHeader("content-type", "application/x-protobuf")
                        .end(Buffer.buffer(ExportTraceServiceResponse.getDefaultInstance().toByteArray()));
            } catch (InvalidProtocolBufferException e) {
                request.response().setStatusCode(400).end();
            }
        });
    }

    private List<Span> spans() {
        return exports.stream().flatMap(export -> export.getResourceSpansList().stream())
                .flatMap(resource -> resource.getScopeSpansList().stream())
                .flatMap(scope -> scope.getSpansList().stream()).toList();
    }

    private static Span only(List<Span> spans, Span.SpanKind kind) {
        List<Span> ofKind = spans.stream().filter(span -> span.getKind() == kind).toList();
        assertThat(ofKind).as("%s spans", kind).hasSize(1);
        return ofKind.getFirst();
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        return attributes.stream().collect(Collectors.toMap(KeyValue::getKey, kv -> text(kv.getValue())));
    }

    private static String text(AnyValue value) {
        return switch (value.getValueCase()) {
            case STRING_VALUE -> value.getStringValue();
            case INT_VALUE -> Long.toString(value.getIntValue());
            case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
            default -> value.toString();
        };
    }

    private static String hex(ByteString id) {
        return HexFormat.of().formatHex(id.toByteArray());
    }

    @Test
    void spansReachAnOtlpReceiverOnLoopbackAndTheEngineGetsTheAttemptsTraceContext() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, List.of(engine.url()))
                .with(Settings.ENABLE_TRACE, true)
                .with(Settings.OTLP_TRACES_ENDPOINT, "127.0.0.1:" + receiver.actualPort()))) {
            HttpResponse<String> answer = gateway.post("/v1/chat/completions", "{\"model\":\"sim-model\","
                    + "\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"Trace me.\"}]}",
                    "x-request-id", "otlp-1");
            assertThat(answer.statusCode()).isEqualTo(200);
        }
        // Closing the gateway flushed its queue; the receiver may still be reading the batch.
        await().atMost(WAIT).until(() -> spans().size() >= 2);

        List<Span> spans = spans();
        Span request = only(spans, Span.SpanKind.SPAN_KIND_SERVER);
        Span attempt = only(spans, Span.SpanKind.SPAN_KIND_CLIENT);
        assertThat(attempt.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(attempt.getParentSpanId()).isEqualTo(request.getSpanId());
        assertThat(attributes(request.getAttributesList())).containsEntry("homing.request_id", "otlp-1")
                .containsEntry("gen_ai.request.model", "sim-model").containsEntry("homing.worker", engine.url())
                .containsEntry("homing.policy", Settings.POLICY.defaultValue()).containsKey("homing.branch")
                .containsEntry("http.response.status_code", "200").containsEntry("homing.retries", "0");
        assertThat(attributes(attempt.getAttributesList())).containsEntry("homing.outcome", "success")
                .containsKey("homing.prompt_tokens").containsKey("homing.cached_tokens");
        assertThat(attributes(exports.getFirst().getResourceSpans(0).getResource().getAttributesList()))
                .containsEntry("service.name", "homing");
        assertThat(contentTypes).allSatisfy(type -> assertThat(type).isEqualTo("application/x-protobuf"));

        assertThat(engine.receivedTraces()).filteredOn(trace -> "otlp-1".equals(trace.requestId()))
                .singleElement().satisfies(trace -> assertThat(trace.traceparent())
                        .startsWith("00-" + hex(attempt.getTraceId()) + "-" + hex(attempt.getSpanId()) + "-"));
    }
}
