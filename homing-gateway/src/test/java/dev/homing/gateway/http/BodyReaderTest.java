package dev.homing.gateway.http;

import dev.homing.gateway.testing.TestVertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A body handed over by {@link BodyReader} is held by its {@link BodyReader.Body} alone: once released, its bytes go,
 * even while its request stays open (a streaming answer keeps the request, and the reader behind its handlers, for
 * as long as it runs).
 */
class BodyReaderTest {

    private final BodyMemory memory = new BodyMemory(1 << 20);
    private final BodyReader reader = new BodyReader(TestVertx.get(), memory, Duration.ofSeconds(30));
    /** The bytes each request's body was read into, released at once, its request left open. */
    private final Queue<WeakReference<Buffer>> released = new ConcurrentLinkedQueue<>();
    private final Queue<HttpServerRequest> open = new ConcurrentLinkedQueue<>();
    private HttpServer server;

    @AfterEach
    void close() throws Exception {
        open.forEach(request -> request.response().end());
        if (server != null) {
            server.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aReleasedBodyIsLetGoWhileItsRequestIsStillOpen() throws Exception {
        server = TestVertx.get().createHttpServer().requestHandler(request -> {
            open.add(request);
            reader.read(request, 1 << 20, body -> {
                released.add(new WeakReference<>(body.bytes()));
                body.release();
            }, error -> error.send(request.response()));
        }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);

        try (Socket inOneChunk = post("{\"a\":1}", 7); Socket inTwo = post("{\"a\":1,", 13)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> released.size() == 1 && memory.inUse() > 0);
            send(inTwo, "\"b\":2}");
            await().atMost(Duration.ofSeconds(30)).until(() -> released.size() == 2);

            assertThat(memory.inUse()).isZero();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                System.gc();
                return released.stream().allMatch(bytes -> bytes.get() == null);
            });
            assertThat(open).hasSize(2);
        }
    }

    /** Opens a connection and sends the head of a POST with a body of {@code length} bytes, and its first chunk. */
    private Socket post(String firstChunk, int length) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", server.actualPort()), 5_000);
        send(socket, "POST /v1/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                + "content-length: " + length + "\r\n\r\n" + firstChunk);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
