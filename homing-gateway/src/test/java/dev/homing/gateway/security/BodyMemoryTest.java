package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Request bodies in memory stay within the gateway's budget (1 MiB here): a body that would take it over waits for
 * nothing and gets 503 with Retry-After, one larger than the budget 413, and a refused upload's connection is closed
 * at once rather than read to its end. What is in memory shows as {@code homing_body_memory_bytes}.
 */
class BodyMemoryTest {

    private static final long BUDGET = 1 << 20;
    private static final String BODY_MEMORY = "homing_body_memory_bytes";

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("model-a",
            config -> config.with(Settings.MAX_BODY_MEMORY, BUDGET));

    @BeforeEach
    void clear() {
        awaitBodyMemory(0);
    }

    @Test
    void anUploadDeclaringMoreThanThePayloadLimitGets413AtOnceAndItsConnectionIsClosed() throws IOException {
        try (Socket socket = connect()) {
            send(socket, head(600L << 20));
            socket.getOutputStream().write(new byte[64 * 1024]);

            RawHttp.Response answer = RawHttp.read(socket.getInputStream());

            assertThat(answer.status()).isEqualTo(413);
            assertThat(answer.headers().get("x-smg-error-code")).isEqualTo("payload_too_large");
            assertClosed(socket);
        }
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void aBodyThatWouldTakeTheBudgetOverGets503WithRetryAfterUntilTheOtherIsSent() throws IOException {
        String held = prompt(800 * 1024);
        try (Socket holder = sendingPartOf(held, 1_000)) {
            String other = prompt(400 * 1024);
            HttpResponse<String> refused = setup.gateway().post("/v1/completions", other);

            assertThat(refused.statusCode()).isEqualTo(503);
            assertThat(refused.headers().firstValue("x-smg-error-code")).hasValue("body_memory_full");
            assertThat(refused.headers().firstValue("retry-after")).hasValue("1");

            send(holder, held.substring(1_000));
            assertThat(RawHttp.read(holder.getInputStream()).status()).isEqualTo(200);
            assertThat(setup.gateway().post("/v1/completions", other).statusCode()).isEqualTo(200);
        }
        assertThat(setup.worker().received()).hasSize(2);
    }

    @Test
    void aBodyLargerThanTheWholeBudgetGets413() {
        HttpResponse<String> answer = setup.gateway().post("/v1/completions", prompt((int) BUDGET + 1));

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(answer.body()).contains("bytes of request bodies the gateway holds at once");
    }

    @Test
    void aChunkedBodyCountsTwiceWhileItIsReadSoOneOverHalfTheBudgetGets413() throws IOException {
        byte[] body = prompt(600 * 1024).getBytes(StandardCharsets.UTF_8);

        RawHttp.Response answer = postChunked(body);

        assertThat(answer.status()).isEqualTo(413);
        assertThat(answer.text()).contains("send its Content-Length");
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void aChunkedBodyWithinHalfTheBudgetReachesTheWorkerWhole() throws IOException {
        byte[] body = prompt(300 * 1024).getBytes(StandardCharsets.UTF_8);

        RawHttp.Response answer = postChunked(body);

        assertThat(answer.status()).isEqualTo(200);
        assertThat(setup.worker().received()).hasSize(1);
        assertThat(setup.worker().received().getFirst().body()).isEqualTo(body);
    }

    @Test
    void aStreamingAnswerHoldsNoBodyMemoryWhileItRuns() throws IOException {
        setup.worker().behaviour(FakeWorker.Behaviour.ENDLESS_STREAM);
        String body = prompt(200 * 1024);
        try (Socket socket = connect()) {
            send(socket, head(body.length()) + body);
            await().atMost(Duration.ofSeconds(30)).until(() -> !setup.worker().received().isEmpty());
            assertThat(socket.getInputStream().read()).as("the stream has started").isPositive();

            awaitBodyMemory(0);
        }
    }

    @Test
    void aClientThatLeavesHalfWayThroughItsBodyGivesItsMemoryBack() throws IOException {
        String body = prompt(500 * 1024);
        try (Socket socket = sendingPartOf(body, 10_000)) {
        }

        awaitBodyMemory(0);
        assertThat(setup.gateway().metric("homing_body_memory_limit_bytes")).isEqualTo(BUDGET);
    }

    /** A connection that sent the head and the first {@code sent} characters of {@code body}, held in memory. */
    private static Socket sendingPartOf(String body, int sent) throws IOException {
        Socket socket = connect();
        send(socket, head(body.length()) + body.substring(0, sent));
        awaitBodyMemory(body.length());
        return socket;
    }

    /** Waits until the gateway holds {@code bytes} of request bodies in memory. */
    private static void awaitBodyMemory(long bytes) {
        await().atMost(Duration.ofSeconds(30)).until(() -> setup.gateway().metric(BODY_MEMORY) == bytes);
    }

    /** A completions body of exactly {@code bytes} bytes. */
    private static String prompt(int bytes) {
        String open = "{\"prompt\":\"";
        return open + "p".repeat(bytes - open.length() - 2) + "\"}";
    }

    private static String head(long contentLength) {
        return "POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                + "content-length: " + contentLength + "\r\n\r\n";
    }

    private static RawHttp.Response postChunked(byte[] body) throws IOException {
        return RawHttp.exchange(setup.gateway().gateway().port(), "POST", "/v1/completions",
                Map.of("content-type", "application/json"), body, true);
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", setup.gateway().gateway().port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static void assertClosed(Socket socket) throws IOException {
        try {
            assertThat(socket.getInputStream().read()).as("connection closed after the answer").isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection stayed open, reading the rest of the body", e);
        } catch (IOException reset) {
            // Closed with bytes of ours unread: a reset is a close too.
        }
    }
}
