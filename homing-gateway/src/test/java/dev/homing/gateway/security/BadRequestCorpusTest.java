package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.AssertionFailedError;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Replays every case of {@code bad-requests/corpus.json} against a gateway in front of two fake workers (models
 * {@code model-a} and {@code model-b}, 64 KiB body limit) and checks that the gateway itself refused the request:
 * the expected status, the OpenAI error shape (one of OpenAI's types, a param) with the expected code, and nothing
 * received by either worker. A raw case is sent byte for byte; its connection must be closed after the one answer.
 *
 * <p>Cases named in {@code bad-requests/known-failures.json} are what the gateway still gets wrong: they run, are
 * reported as skipped with the reason, and fail loudly once they pass so the mark gets removed.
 */
class BadRequestCorpusTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    /** The error types of OpenAI's error object that a gateway refusal may carry. */
    private static final List<String> OPENAI_TYPES = List.of("invalid_request_error", "authentication_error",
            "permission_error", "not_found_error", "rate_limit_error", "server_error");
    /** The corpus's oversized cases are sized against this limit. */
    private static final long PAYLOAD_LIMIT = 64 * 1024;

    @RegisterExtension
    static final FakeWorker workerA = FakeWorker.start("model-a");
    @RegisterExtension
    static final FakeWorker workerB = FakeWorker.start("model-b");
    private static RunningGateway gateway;

    /** One corpus case, resolved to bytes. */
    record Case(String name, String what, String method, String path, Map<String, String> headers, byte[] body,
                boolean chunked, byte[] raw, int status, String code) {
        @Override
        public String toString() {
            return name + " (" + what + ")";
        }
    }

    @BeforeAll
    static void start() {
        gateway = RunningGateway.start(RunningGateway.config(List.of(workerA, workerB))
                .with(Settings.POLICY, "round_robin")
                .with(Settings.MAX_PAYLOAD_SIZE, PAYLOAD_LIMIT));
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @BeforeEach
    void clear() {
        workerA.clear();
        workerB.clear();
    }

    static List<Case> cases() {
        JsonNode root = resource("corpus.json");
        List<Case> out = new ArrayList<>();
        for (JsonNode c : root.get("cases")) {
            if (c.has("raw")) {
                out.add(new Case(c.get("name").asString(), c.get("what").asString(), null, null, Map.of(),
                        new byte[0], false, c.get("raw").asString().getBytes(StandardCharsets.ISO_8859_1),
                        c.get("expect").get("status").asInt(), c.get("expect").get("code").asString()));
                continue;
            }
            Map<String, String> headers = new LinkedHashMap<>();
            if (c.has("headers")) {
                c.get("headers").properties().forEach(e -> headers.put(e.getKey(), e.getValue().asString()));
            } else {
                headers.put("content-type", "application/json");
            }
            byte[] body;
            if (c.has("body_base64")) {
                body = Base64.getDecoder().decode(c.get("body_base64").asString());
            } else {
                String text = c.path("body").asString("");
                for (JsonNode fill : c.path("fill")) {
                    text = text.replace(fill.get("placeholder").asString(),
                            fill.get("unit").asString().repeat(fill.get("times").asInt()));
                }
                body = text.getBytes(StandardCharsets.UTF_8);
            }
            out.add(new Case(c.get("name").asString(), c.get("what").asString(), c.get("method").asString(),
                    c.get("path").asString(), headers, body, c.path("chunked").asBoolean(false), null,
                    c.get("expect").get("status").asInt(), c.get("expect").get("code").asString()));
        }
        return out;
    }

    private static Map<String, String> knownFailures() {
        Map<String, String> out = new LinkedHashMap<>();
        resource("known-failures.json").properties().forEach(e -> out.put(e.getKey(), e.getValue().asString()));
        return out;
    }

    private static JsonNode resource(String name) {
        try (InputStream in = BadRequestCorpusTest.class.getResourceAsStream("/bad-requests/" + name)) {
            return JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theCorpusHoldsAtLeastFiftyCasesAndEveryKnownFailureNamesOne() {
        List<String> names = cases().stream().map(Case::name).toList();

        assertThat(names).hasSizeGreaterThanOrEqualTo(50).doesNotHaveDuplicates();
        assertThat(names).containsAll(knownFailures().keySet());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theGatewayRefusesTheRequestItselfWithAnOpenAiError(Case c) throws IOException {
        String knownFailure = knownFailures().get(c.name());
        try {
            check(c);
        } catch (AssertionError e) {
            assumeThat(knownFailure).as("known failure: %s", e.getMessage()).isNull();
            throw e;
        }
        if (knownFailure != null) {
            throw new AssertionFailedError(c.name() + " passes now: remove it from known-failures.json");
        }
    }

    private void check(Case c) throws IOException {
        RawHttp.Response r;
        if (c.raw() != null) {
            RawHttp.Conversation conversation = RawHttp.sendRaw(gateway.gateway().port(), c.raw());
            r = conversation.first();
            assertThat(new String(conversation.after(), StandardCharsets.ISO_8859_1))
                    .as("what the gateway sent after its answer").isEmpty();
            assertThat(conversation.closed()).as("connection closed after the answer").isTrue();
        } else {
            r = RawHttp.exchange(gateway.gateway().port(), c.method(), c.path(), c.headers(), c.body(), c.chunked());
        }
        int reachedWorkers = workerA.received().size() + workerB.received().size();
        assertThat(r.status()).as("status of %s, body %s", c.name(), abbreviated(r.text())).isEqualTo(c.status());
        assertThat(reachedWorkers).as("requests that reached a worker").isZero();
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (RuntimeException e) {
            throw new AssertionFailedError("body is not JSON: " + abbreviated(r.text()));
        }
        JsonNode error = body.path("error");
        assertThat(error.isObject()).as("an error object in %s", abbreviated(r.text())).isTrue();
        assertThat(error.path("message").isString()).as("error.message").isTrue();
        assertThat(error.path("type").asString("")).as("error.type, one of OpenAI's").isIn(OPENAI_TYPES);
        assertThat(error.has("param")).as("error.param, null when no field is at fault").isTrue();
        assertThat(error.path("code").asString("")).as("error.code").isEqualTo(c.code());
        assertThat(r.headers().get("x-smg-error-code")).as("x-smg-error-code").isEqualTo(c.code());
    }

    private static String abbreviated(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
