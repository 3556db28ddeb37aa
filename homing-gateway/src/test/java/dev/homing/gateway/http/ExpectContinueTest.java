package dev.homing.gateway.http;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.OneWorkerGateway;
import dev.homing.gateway.testing.TestVertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Expect: 100-continue}: the 100 goes out once the gateway is about to read the body, so a request refused
 * before that gets its final status and never sends its body; any other expectation gets 417.
 */
class ExpectContinueTest {

    private static final String KEY = "secret-key";
    private static final int PAYLOAD_LIMIT = 4096;
    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final String CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n";

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("m", config -> config
            .with(Settings.POLICY, "round_robin").with(Settings.API_KEY, KEY)
            .with(Settings.MAX_PAYLOAD_SIZE, (long) PAYLOAD_LIMIT));

    @Test
    void aClientThatExpects100ContinueGetsItBeforeSendingItsBodyThenItsAnswer() throws IOException {
        try (Socket socket = connect()) {
            byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
            send(socket, head("HTTP/1.1", KEY, body.length, "100-continue"));

            assertThat(readHead(socket.getInputStream())).isEqualTo(CONTINUE);
            assertThat(setup.worker().received()).isEmpty();

            send(socket, body);
            String answer = readHead(socket.getInputStream());
            assertThat(answer).startsWith("HTTP/1.1 200 ").doesNotContainIgnoringCase("connection: close");
            assertThat(setup.worker().received().getFirst().body()).isEqualTo(body);
        }
    }

    @Test
    void aRequestRefusedForItsKeyGets401WithoutA100AndTheConnectionCloses() throws IOException {
        try (Socket socket = connect()) {
            send(socket, head("HTTP/1.1", "wrong-key", CHAT.length(), "100-continue"));

            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(answer).startsWith("HTTP/1.1 401 ").doesNotContain("100 Continue")
                    .containsIgnoringCase("connection: close");
            assertThat(setup.worker().received()).isEmpty();
        }
    }

    @Test
    void aBodyDeclaredTooLargeGets413WithoutA100() throws IOException {
        try (Socket socket = connect()) {
            send(socket, head("HTTP/1.1", KEY, PAYLOAD_LIMIT + 1, "100-continue"));

            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(answer).startsWith("HTTP/1.1 413 ").doesNotContain("100 Continue");
        }
    }

    @Test
    void anyOtherExpectationGets417InTheOpenAiErrorShape() throws IOException {
        String answer = sendWhole("HTTP/1.1", "100-continue, fast-answer");

        assertThat(answer).startsWith("HTTP/1.1 417 ").containsIgnoringCase("connection: close")
                .containsIgnoringCase("x-smg-error-code: expectation_failed")
                .contains("{\"error\":{\"message\":").contains("\"type\":\"invalid_request_error\"")
                .contains("\"code\":\"expectation_failed\"");
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void anHttp10ClientIsNeverSentA100() throws IOException {
        String answer = sendWhole("HTTP/1.0", "100-continue");

        assertThat(answer).doesNotContain("100 Continue").startsWith("HTTP/1.0 200 ");
    }

    @Test
    void anH2cStreamGetsItsInterim100BeforeSendingItsBody() throws Exception {
        HttpClient client = TestVertx.get().createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));
        AtomicBoolean continued = new AtomicBoolean();
        try {
            int status = client.request(new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1")
                            .setPort(setup.gateway().gateway().port()).setURI("/v1/chat/completions")
                            .putHeader("authorization", "Bearer " + KEY).putHeader("content-type", "application/json")
                            .putHeader("content-length", String.valueOf(CHAT.length()))
                            .putHeader("expect", "100-continue"))
                    .compose(request -> {
                        request.continueHandler(v -> {
                            continued.set(true);
                            request.end(CHAT);
                        });
                        return request.sendHead().compose(v -> request.response());
                    })
                    .compose(response -> response.body().map(b -> response.statusCode()))
                    .toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);

            assertThat(continued).isTrue();
            assertThat(status).isEqualTo(200);
        } finally {
            client.close();
        }
    }

    @Test
    void theJdkClientExpectingContinueGetsItsAnswer() {
        HttpResponse<String> response = setup.gateway().send(HttpRequest.newBuilder(
                        URI.create(setup.gateway().url("/v1/chat/completions"))).timeout(Duration.ofSeconds(20))
                .expectContinue(true).header("authorization", "Bearer " + KEY)
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(CHAT)).build());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(setup.worker().received()).hasSize(1);
    }

    /** Sends the chat request's head and, without waiting, its body; returns all the gateway answers. */
    private static String sendWhole(String version, String expect) throws IOException {
        try (Socket socket = connect()) {
            byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
            send(socket, head(version, KEY, body.length, expect));
            send(socket, body);
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", setup.gateway().gateway().port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static byte[] head(String version, String key, int length, String expect) {
        return ("POST /v1/chat/completions " + version + "\r\nhost: 127.0.0.1\r\nauthorization: Bearer " + key
                + "\r\ncontent-type: application/json\r\ncontent-length: " + length + "\r\nexpect: " + expect
                + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    private static void send(Socket socket, byte[] bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    /** Reads up to the blank line that ends a response head (an interim one included), byte by byte. */
    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
