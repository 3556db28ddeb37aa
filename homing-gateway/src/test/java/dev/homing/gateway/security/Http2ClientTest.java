package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.OneWorkerGateway;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.StreamResetException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * HTTP/2 over plain text (h2c) has the limits HTTP/1.1 has: a connection that opens no stream within the header
 * timeout is closed, so is one idle for the keep-alive timeout, a stream whose body stalls gets 408 and gives its
 * admission permit back, each stream holds a permit of its own, a stream answered before its body ended is reset,
 * and a connection takes at most 100 streams at once; {@code --disable-h2c} turns it off. The gateway runs with
 * 1-second client timeouts and one admission permit; the clients speak h2c by prior knowledge.
 */
class Http2ClientTest {

    private static final String CHAT = "{\"model\":\"model-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("model-a", config -> config
            .with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L).with(Settings.CLIENT_BODY_TIMEOUT_SECS, 1L)
            .with(Settings.CLIENT_KEEPALIVE_TIMEOUT_SECS, 1L).with(Settings.MAX_CONCURRENT_REQUESTS, 1)
            .with(Settings.QUEUE_SIZE, 10).with(Settings.QUEUE_TIMEOUT_SECS, 30L)
            .with(Settings.MAX_PAYLOAD_SIZE, 64 * 1024L));
    private final List<HttpClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(HttpClient::close);
    }

    @Test
    void aConnectionThatSendsOnlyThePrefaceIsClosedAfterTheHeaderTimeout() throws IOException {
        try (Socket socket = connect()) {
            socket.getOutputStream().write(PREFACE);
            // An empty SETTINGS frame: the client's side of the connection preface, then nothing.
            socket.getOutputStream().write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});

            assertClosedBy(socket, Duration.ofSeconds(8));
        }
        assertThat(setup.gateway().scrapeMetrics())
                .containsPattern("homing_edge_refusals_total\\{error_code=\"client_header_timeout\"} [1-9]");
    }

    @Test
    void anIdleConnectionIsClosedAfterTheKeepAliveTimeout() {
        HttpClient client = h2Client();
        AtomicReference<HttpConnection> connection = new AtomicReference<>();
        CompletableFuture<Void> closed = new CompletableFuture<>();

        HttpClientResponse response = join(client.request(new RequestOptions().setHost("127.0.0.1").setPort(port())
                .setURI("/health")).compose(request -> {
                    connection.set(request.connection());
                    request.connection().closeHandler(v -> closed.complete(null));
                    return request.send();
                }));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.version()).isEqualTo(HttpVersion.HTTP_2);
        closed.orTimeout(10, TimeUnit.SECONDS).join();
    }

    @Test
    void aStreamWhoseBodyStallsGets408AndGivesItsAdmissionPermitBack() {
        HttpClient client = h2Client();
        HttpClientRequest stalled = join(client.request(post()));
        stalled.putHeader("content-length", String.valueOf(CHAT.length()));
        Future<HttpClientResponse> answer = stalled.response();
        stalled.write(CHAT.substring(0, 20));

        HttpClientResponse response = join(answer);

        assertThat(response.statusCode()).isEqualTo(408);
        assertThat(response.getHeader("x-smg-error-code")).isEqualTo("client_body_timeout");
        assertThat(setup.worker().received()).isEmpty();
        // The only permit: had the stalled stream kept it, this request would wait in the queue for 30 s.
        assertThat(join(client.request(post()).compose(r -> r.send(CHAT)).map(HttpClientResponse::statusCode)))
                .isEqualTo(200);
    }

    @Test
    void eachStreamOfAConnectionHoldsAnAdmissionPermitOfItsOwn() {
        setup.worker().behaviour(FakeWorker.Behaviour.HANG);
        HttpClient client = h2Client();
        List<HttpClientRequest> requests = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            HttpClientRequest request = join(client.request(post()));
            request.send(CHAT);
            requests.add(request);
        }

        await().atMost(Duration.ofSeconds(30))
                .until(() -> setup.gateway().metric("smg_http_rate_limit_total{result=\"queued\"}") >= 2);
        // The others can be queued before the first one's body has crossed to the worker.
        await().atMost(Duration.ofSeconds(30)).until(() -> !setup.worker().received().isEmpty());
        assertThat(setup.worker().received()).as("one permit, one stream at the worker").hasSize(1);
        assertThat(requests).extracting(HttpClientRequest::connection).as("all on one connection")
                .containsOnly(requests.getFirst().connection());
        // The waiting ones first, so no permit freed by the first reaches them.
        requests.reversed().forEach(HttpClientRequest::reset);
        setup.gateway().awaitNothingInFlight();
    }

    @Test
    void aStreamAnsweredBeforeItsBodyEndedIsReset() {
        HttpClient client = h2Client();
        HttpClientRequest upload = join(client.request(post()));
        CompletableFuture<Throwable> reset = new CompletableFuture<>();
        upload.exceptionHandler(reset::complete);
        upload.putHeader("content-length", String.valueOf(1 << 20));
        Future<HttpClientResponse> answer = upload.response();
        upload.write(Buffer.buffer(new byte[16 * 1024]));

        assertThat(join(answer).statusCode()).isEqualTo(413);
        assertThat(reset.orTimeout(10, TimeUnit.SECONDS).join()).isInstanceOfSatisfying(StreamResetException.class,
                e -> assertThat(e.getCode()).as("NO_ERROR").isZero());
        assertThat(setup.worker().received()).isEmpty();
    }

    @Test
    void aConnectionTakesAtMostAHundredStreamsAtOnce() {
        HttpClient client = h2Client();

        HttpConnection connection = join(client.request(new RequestOptions().setHost("127.0.0.1").setPort(port())
                .setURI("/health")).compose(request -> request.send().map(response -> request.connection())));

        assertThat(connection.remoteSettings().getMaxConcurrentStreams()).isEqualTo(100);
    }

    @Test
    void withH2cDisabledThePrefaceIsAnHttp2RequestLineRefusedWith505() throws IOException {
        try (RunningGateway http1 = RunningGateway.start(RunningGateway.config(List.of(setup.worker()))
                .with(Settings.DISABLE_H2C, true));
             Socket socket = new Socket("127.0.0.1", http1.gateway().port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(PREFACE);

            RawHttp.Response answer = RawHttp.read(socket.getInputStream());

            assertThat(answer.status()).isEqualTo(505);
            assertClosedBy(socket, Duration.ofSeconds(10));
        }
    }

    private HttpClient h2Client() {
        HttpClient client = TestVertx.get().createHttpClient(new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false), new PoolOptions()
                .setHttp2MaxSize(1));
        clients.add(client);
        return client;
    }

    private static RequestOptions post() {
        return new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port())
                .setURI("/v1/chat/completions").putHeader("content-type", "application/json");
    }

    private static int port() {
        return setup.gateway().gateway().port();
    }

    private static <T> T join(Future<T> future) {
        return future.toCompletionStage().toCompletableFuture().orTimeout(20, TimeUnit.SECONDS).join();
    }

    private static Socket connect() throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port()), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** Reads (and drops: the server's own settings, a GOAWAY) until the server closes, within {@code bound}. */
    private static void assertClosedBy(Socket socket, Duration bound) throws IOException {
        long deadline = System.nanoTime() + bound.toNanos();
        InputStream in = socket.getInputStream();
        try {
            while (in.read(new byte[4096]) >= 0) {
                assertThat(System.nanoTime()).as("closed within %s", bound).isLessThan(deadline);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection stayed open", e);
        } catch (IOException reset) {
            // A reset is a close too.
        }
    }
}
