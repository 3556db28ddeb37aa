package dev.homing.gateway.proxy;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.OneWorkerGateway;
import io.vertx.core.impl.ContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class DataPlaneTest {

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("model-a",
            config -> config.with(Settings.POLICY, "round_robin").with(Settings.MAX_PAYLOAD_SIZE, 64 * 1024L));

    @Test
    void aChatRequestReachesTheWorkerByteForByteWithUnknownFieldsKept() {
        String body = "{ \"model\" : \"model-a\", \"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                + "\"my_vendor_field\":{\"nested\":[1,2.50,\"x\"]},  \"temperature\":0.70}";

        HttpResponse<String> response = setup.gateway().post("/v1/chat/completions", body);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(setup.worker().received()).hasSize(1);
        assertThat(setup.worker().received().getFirst().body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aBodyReadInManyChunksReachesTheWorkerByteForByte() {
        // Larger than the server's 8 KiB chunk size: read as several chunks, joined into one buffer.
        String body = "{\"prompt\":\"" + "abcdefghij".repeat(4 * 1024) + "\",\"stream\":false}";

        HttpResponse<String> response = setup.gateway().post("/v1/completions", body);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(setup.worker().received().getFirst().body()).isEqualTo(body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aNonStreamingAnswerComesBackUnchanged() {
        HttpResponse<String> response = setup.gateway().post("/v1/chat/completions",
                "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"content\":\"Hello\"").contains(setup.worker().url());
        assertThat(response.headers().firstValue("x-worker")).hasValue(setup.worker().url());
    }

    @ParameterizedTest
    @EnumSource(InferenceRoute.class)
    void everyInferenceRouteStreamsTheWorkersEventsUnchanged(InferenceRoute route) {
        HttpResponse<String> response = setup.gateway().post(route.path(), bodyFor(route, true));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(response.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
        assertThat(setup.worker().received().getFirst().path()).isEqualTo(route.path());
    }

    @ParameterizedTest
    @EnumSource(InferenceRoute.class)
    void everyInferenceRouteRelaysANonStreamingAnswer(InferenceRoute route) {
        HttpResponse<String> response = setup.gateway().post(route.path(), bodyFor(route, false));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("{\"id\":\"cmpl-1\"");
        assertThat(setup.worker().received().getFirst().path()).isEqualTo(route.path());
    }

    static String bodyFor(InferenceRoute route, boolean stream) {
        String s = ",\"stream\":" + stream + "}";
        return switch (route) {
            case GENERATE -> "{\"text\":\"hello\"" + s;
            case CHAT -> "{\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]" + s;
            case COMPLETIONS -> "{\"prompt\":\"hello\"" + s;
            case EMBEDDINGS, CLASSIFY -> "{\"input\":\"hello\"" + s;
            case RERANK, RERANK_LEGACY -> "{\"query\":\"hello\",\"documents\":[\"a\"]" + s;
            case RESPONSES -> "{\"input\":\"hello\"" + s;
        };
    }

    @Test
    void aStreamIsRelayedToAClientThatSpeaksHttp2() {
        HttpResponse<String> response = setup.gateway().sendOverHttp2(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(setup.gateway().url("/v1/chat/completions")))
                .timeout(java.time.Duration.ofSeconds(10)).header("content-type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(bodyFor(InferenceRoute.CHAT, true))).build());

        assertThat(response.version()).isEqualTo(java.net.http.HttpClient.Version.HTTP_2);
        assertThat(response.body()).isEqualTo(String.join("", FakeWorker.STREAM_EVENTS));
        setup.gateway().awaitNothingInFlight();
    }

    @ParameterizedTest
    @ValueSource(strings = {"close", "keep-alive"})
    void aStreamToAnHttp10ClientEndsWithItsConnectionAndLogsNoError(String connection) throws IOException {
        byte[] body = bodyFor(InferenceRoute.CHAT, true).getBytes(StandardCharsets.UTF_8);
        try (LogCapture errors = LogCapture.errorsOf(ContextImpl.class);
             Socket socket = new Socket("127.0.0.1", setup.gateway().gateway().port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.0\r\nhost: 127.0.0.1\r\n"
                    + "connection: " + connection + "\r\ncontent-type: application/json\r\ncontent-length: "
                    + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().write(body);

            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

            assertThat(answer).startsWith("HTTP/1.0 200").doesNotContainIgnoringCase("transfer-encoding")
                    .endsWith("\r\n\r\n" + String.join("", FakeWorker.STREAM_EVENTS));
            assertThat(errors.errors()).isEmpty();
        }
    }

    @Test
    void malformedJsonIsRefusedWith400AndNeverReachesTheWorker() {
        HttpResponse<String> response = setup.gateway().post("/v1/chat/completions", "{\"messages\":[{\"role\":");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("\"error\"").contains("\"code\":\"invalid_request\"");
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void aFieldOfTheWrongTypeIsRefusedWith400() {
        HttpResponse<String> response = setup.gateway().post("/v1/chat/completions",
                "{\"stream\":\"yes\",\"messages\":[]}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("stream must be a boolean");
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void aBodyOverTheLimitGets413() {
        String big = "{\"prompt\":\"" + "x".repeat(70 * 1024) + "\"}";

        HttpResponse<String> response = setup.gateway().post("/v1/completions", big);

        assertThat(response.statusCode()).isEqualTo(413);
        assertThat(response.headers().firstValue("x-smg-error-code")).hasValue("payload_too_large");
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void anUnknownPathGets404InTheOpenAiErrorShape() {
        HttpResponse<String> response = setup.gateway().get("/v1/nothing-here");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.body()).startsWith("{\"error\":{\"message\":");
    }

    @Test
    void theRequestIdComesFromTheClientHeaderAndIsEchoedAndForwarded() {
        HttpResponse<String> response =
                setup.gateway().post("/generate", "{\"text\":\"hi\"}", "x-correlation-id", "abc-1");

        assertThat(response.headers().firstValue("x-request-id")).hasValue("abc-1");
        assertThat(setup.worker().received().getFirst().headers().get("x-request-id")).isEqualTo("abc-1");
    }

    @Test
    void aGeneratedRequestIdCarriesTheRoutesPrefix() {
        HttpResponse<String> response = setup.gateway().post("/v1/chat/completions", "{\"messages\":[]}");

        assertThat(response.headers().firstValue("x-request-id")).hasValueSatisfying(
                id -> assertThat(id).matches("chatcmpl-[A-Za-z0-9]{24}"));
    }

    @Test
    void onlyTheAllowedHeadersReachTheWorker() {
        setup.gateway().post("/generate", "{\"text\":\"hi\"}", "authorization", "Bearer client", "cookie", "secret=1",
                "traceparent", "00-abc-def-01", "x-request-id-extra", "e");

        var headers = setup.worker().received().getFirst().headers();
        assertThat(headers.get("authorization")).isEqualTo("Bearer client");
        assertThat(headers.get("traceparent")).isEqualTo("00-abc-def-01");
        assertThat(headers.get("x-request-id-extra")).isEqualTo("e");
        assertThat(headers.get("cookie")).isNull();
    }

    /** Models synthesised from the registry, readiness reporting the healthy workers, model info from a worker. */
    static Stream<Arguments> pagesAndWhatTheySay() {
        return Stream.of(
                Arguments.of("/v1/models", List.of("\"id\":\"model-a\"", "\"object\":\"list\"")),
                Arguments.of("/readiness", List.of("\"status\":\"ready\"", "\"healthy_workers\":1")),
                Arguments.of("/get_model_info", List.of("\"model_path\":\"model-a\"")));
    }

    @ParameterizedTest(name = "GET {0} answers 200 with {1}")
    @MethodSource("pagesAndWhatTheySay")
    void theInformationPagesAnswerFromTheRegistryOrAHealthyWorker(String path, List<String> says) {
        HttpResponse<String> response = setup.gateway().get(path);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains(says);
    }

    @Test
    void engineMetricsAreMergedWithAWorkerAddressLabel() {
        HttpResponse<String> response = setup.gateway().get("/engine_metrics");

        assertThat(response.body()).contains(
                "sglang:num_running_reqs{worker_addr=\"" + setup.worker().url() + "\",model_name=\"model-a\"} 3");
    }

    @Test
    void loadsAreFannedOutToEveryWorker() {
        HttpResponse<String> response = setup.gateway().get("/get_loads");

        assertThat(response.body()).contains("\"worker\":\"" + setup.worker().url() + "\"").contains("\"load\":7");
    }

    @Test
    void flushCacheIsFannedOutToEveryWorker() {
        HttpResponse<String> response = setup.gateway().post("/flush_cache", "");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"success\":true");
    }
}
