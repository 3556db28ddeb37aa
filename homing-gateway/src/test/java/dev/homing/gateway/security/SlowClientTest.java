package dev.homing.gateway.security;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Clients that send too slowly or idle too long lose their connection, with a 408 in the OpenAI shape when they were
 * in the middle of a request, and nothing of their request reaches a worker. The gateway runs with 1-second client
 * timeouts; each test talks raw HTTP/1.1 over a loopback socket. Its well-behaved requests (a scrape, a request after
 * a stalled one, one to a hung worker) go whole in one write on a connection of their own ({@link #ask}): then no
 * pause of this machine can fall inside a request for those timeouts to catch, and no pooled connection can have
 * idled past the keep-alive.
 */
class SlowClientTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String CHAT = "{\"model\":\"model-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("model-a", SlowClientTest::oneSecondClientTimeouts);

    private static Config oneSecondClientTimeouts(Config config) {
        return config.with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L).with(Settings.CLIENT_BODY_TIMEOUT_SECS, 1L)
                .with(Settings.CLIENT_KEEPALIVE_TIMEOUT_SECS, 1L).with(Settings.MAX_CONCURRENT_REQUESTS, 1)
                .with(Settings.QUEUE_TIMEOUT_SECS, 10L);
    }

    private final ScheduledExecutorService dribbler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopDribbling() {
        dribbler.shutdownNow();
    }

    @Test
    void aHeadThatStopsHalfWayGets408AndTheConnectionIsClosed() throws IOException {
        try (Socket socket = connect()) {
            send(socket, "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: appl");

            assertTimedOut(socket, "client_header_timeout");
        }
        assertThat(setup.worker().received()).isEmpty();
        assertThat(scrapeMetrics()).as("answered below the routes, still counted")
                .containsPattern("homing_edge_refusals_total\\{error_code=\"client_header_timeout\"} [1-9]");
    }

    @Test
    void aRequestLineTheDecoderRefusesIsAnsweredAndCountedByItsCode() throws IOException {
        try (Socket socket = connect()) {
            send(socket, "GET /" + "a".repeat(5_000) + " HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");

            RawHttp.Response response = RawHttp.read(socket.getInputStream());
            assertThat(response.status()).isEqualTo(414);
            assertThat(response.headers().get("x-smg-error-code")).isEqualTo("uri_too_long");
        }
        assertThat(scrapeMetrics())
                .containsPattern("homing_edge_refusals_total\\{error_code=\"uri_too_long\"} [1-9]");
    }

    @Test
    void aHeadDribbledAByteAtATimeStillGets408AtTheHeaderTimeout() throws IOException {
        try (Socket socket = connect()) {
            OutputStream out = socket.getOutputStream();
            send(socket, "GET /health HTTP/1.1\r\n");
            // One header byte every 100 ms: activity that would keep a plain idle timeout from ever firing, so the
            // 408 can only come from the head's own deadline (the dribble never stops; the socket's read timeout is
            // the bound, not a clock that a busy machine would stretch).
            dribbler.scheduleAtFixedRate(() -> {
                try {
                    out.write('x');
                    out.flush();
                } catch (IOException closed) {
                    throw new IllegalStateException(closed);
                }
            }, 0, 100, TimeUnit.MILLISECONDS);

            assertTimedOut(socket, "client_header_timeout");
        }
    }

    @Test
    void aBodyThatStopsHalfWayGets408NeverReachesAWorkerAndGivesItsAdmissionBack() throws IOException {
        try (Socket socket = connect()) {
            send(socket, "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                    + "content-length: " + CHAT.length() + "\r\n\r\n" + CHAT.substring(0, 20));

            assertTimedOut(socket, "client_body_timeout");
        }
        assertThat(setup.worker().received()).isEmpty();

        // --max-concurrent-requests is 1: a permit kept by the stalled request would leave this one waiting.
        RawHttp.Response next = ask(setup.gateway().gateway().port(), "POST", "/v1/chat/completions", CHAT);
        assertThat(next.status()).as("answer %s", next.text()).isEqualTo(200);
    }

    @Test
    void aSilentConnectionIsClosedWithoutAnAnswer() throws IOException {
        try (Socket socket = connect()) {
            assertThat(socket.getInputStream().read()).as("end of stream, no answer").isEqualTo(-1);
        }
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterItsAnswer() throws IOException {
        try (Socket socket = connect()) {
            send(socket, "GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
            InputStream in = socket.getInputStream();
            RawHttp.Response answer = RawHttp.read(new BoundedByContentLength(in));

            assertThat(answer.status()).isEqualTo(200);
            assertThat(in.read()).as("closed after the keep-alive timeout").isEqualTo(-1);
        }
    }

    @Test
    void aHeadStartedAfterAnAnswerTimesOutAtTheHeaderTimeoutEvenWhenTheKeepAliveTimeoutIsLonger() throws IOException {
        // One check per connection: the one pending since the answer must come no later than the head's deadline.
        try (RunningGateway patient = RunningGateway.start(RunningGateway.config(List.of(setup.worker()))
                .with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L).with(Settings.CLIENT_KEEPALIVE_TIMEOUT_SECS, 60L));
             Socket socket = connect(patient)) {
            send(socket, "GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
            assertThat(RawHttp.read(new BoundedByContentLength(socket.getInputStream())).status()).isEqualTo(200);

            send(socket, "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: appl");

            // Read within the socket's 10 s timeout: far sooner than the 60 s keep-alive.
            assertTimedOut(socket, "client_header_timeout");
        }
    }

    @Test
    void aSlowWorkerIsNotMistakenForASlowClient() throws IOException {
        setup.worker().behaviour(FakeWorker.Behaviour.HANG);
        // A gateway of its own: the 3 s request timeout is this test's, not one the others' requests could meet.
        try (RunningGateway timed = RunningGateway.start(oneSecondClientTimeouts(
                RunningGateway.config(List.of(setup.worker()))).with(Settings.REQUEST_TIMEOUT_SECS, 3L))) {

            RawHttp.Response response = ask(timed.gateway().port(), "POST", "/v1/chat/completions", CHAT);

            // The client timeouts are 1 s; only --request-timeout-secs (3 s) may end this exchange, with 504.
            assertThat(response.status()).as("answer %s", response.text()).isEqualTo(504);
            assertThat(response.headers().get("x-smg-error-code")).isEqualTo("call_upstream_timeout");
        }
    }

    @Test
    void aPartialHeadToTheMetricsPortGets408AndTheConnectionIsClosed() throws IOException {
        try (Socket socket = connect(setup.gateway().gateway().metricsPort())) {
            send(socket, "GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\nacc");

            assertTimedOut(socket, "client_header_timeout");
        }
    }

    @Test
    void anIdleConnectionToTheMetricsPortIsClosed() throws IOException {
        try (Socket socket = connect(setup.gateway().gateway().metricsPort())) {
            send(socket, "GET /metrics HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
            InputStream in = socket.getInputStream();

            assertThat(RawHttp.read(new BoundedByContentLength(in)).status()).isEqualTo(200);
            assertThat(in.read()).as("closed after the keep-alive timeout").isEqualTo(-1);
        }
    }

    /** One well-behaved request on a connection of its own, written whole in one go, and its answer. */
    private static RawHttp.Response ask(int port, String method, String path, String body) throws IOException {
        return RawHttp.exchange(port, method, path, body.isEmpty() ? Map.of()
                : Map.of("content-type", "application/json"), body.getBytes(StandardCharsets.UTF_8), false);
    }

    /** The metrics exposition, asked for as {@link #ask} does. */
    private static String scrapeMetrics() throws IOException {
        RawHttp.Response metrics = ask(setup.gateway().gateway().metricsPort(), "GET", "/metrics", "");
        assertThat(metrics.status()).isEqualTo(200);
        return metrics.text();
    }

    private static Socket connect() throws IOException {
        return connect(setup.gateway().gateway().port());
    }

    private static Socket connect(RunningGateway to) throws IOException {
        return connect(to.gateway().port());
    }

    private static Socket connect(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    private static void assertTimedOut(Socket socket, String code) throws IOException {
        RawHttp.Response response = RawHttp.read(socket.getInputStream());
        assertThat(response.status()).as("answer %s", response.text()).isEqualTo(408);
        assertThat(response.headers().get("connection")).isEqualTo("close");
        assertThat(response.headers().get("x-smg-error-code")).isEqualTo(code);
        JsonNode error = JSON.readTree(response.body()).path("error");
        assertThat(error.path("code").asString()).isEqualTo(code);
        assertThat(error.path("message").isString()).isTrue();
        try {
            assertThat(socket.getInputStream().read()).as("connection closed after the 408").isEqualTo(-1);
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection stayed open after the 408", e);
        } catch (IOException reset) {
            // Closed with unread bytes of ours still in flight: a reset is a close too.
        }
    }

    /** Ends the stream after one response's head and Content-Length body, so the socket itself stays open. */
    private static final class BoundedByContentLength extends InputStream {
        private final InputStream in;
        private final StringBuilder head = new StringBuilder();
        private long bodyLeft = -1;

        BoundedByContentLength(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            if (bodyLeft == 0) {
                return -1;
            }
            int b = in.read();
            if (b < 0) {
                return b;
            }
            if (bodyLeft > 0) {
                bodyLeft--;
            } else {
                head.append((char) b);
                if (head.toString().endsWith("\r\n\r\n")) {
                    String lower = head.toString().toLowerCase(java.util.Locale.ROOT);
                    int at = lower.indexOf("content-length:");
                    bodyLeft = at < 0 ? 0 : Long.parseLong(lower.substring(at + 15, lower.indexOf("\r\n", at)).trim());
                }
            }
            return b;
        }
    }
}
