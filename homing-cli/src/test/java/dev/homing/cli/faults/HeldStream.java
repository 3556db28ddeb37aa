package dev.homing.cli.faults;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One server-sent-event stream whose client stops reading as soon as the answer's head arrives and reads on only
 * when told to: the slowest reader there is. It keeps only the stream's last bytes, which hold what tells how it
 * ended (the gateway's error event or {@code [DONE]} come last), so thousands of them cost the test little memory.
 *
 * <p>Confined to its connection's event loop, but for {@link #readOn()}, which Vert.x lets any thread call.
 */
final class HeldStream {

    private static final int TAIL_BYTES = 512;

    private final String requestId;
    private final HttpClientResponse response;
    private final CompletableFuture<Answer> answer = new CompletableFuture<>();
    private Buffer tail = Buffer.buffer();
    private volatile long bytes;

    private HeldStream(String requestId, HttpClientResponse response) {
        this.requestId = requestId;
        this.response = response;
    }

    /** Takes the response just after its head arrived, and stops reading it. */
    static HeldStream hold(String requestId, HttpClientResponse response) {
        HeldStream stream = new HeldStream(requestId, response);
        response.pause();
        response.handler(stream::received);
        response.exceptionHandler(failure -> stream.answer.complete(Answer.broken(requestId, true, failure)));
        response.endHandler(ignored -> stream.answer.complete(new Answer(requestId, true, response.statusCode(),
                null, stream.tail.toString(StandardCharsets.UTF_8), null)));
        return stream;
    }

    /** Reads the rest of the stream, as fast as it comes. */
    void readOn() {
        response.resume();
    }

    /** How the stream ended, once it has. */
    CompletableFuture<Answer> answer() {
        return answer;
    }

    /** Bytes of the stream read so far. */
    long bytes() {
        return bytes;
    }

    private void received(Buffer chunk) {
        bytes += chunk.length();
        Buffer joined = tail.appendBuffer(chunk);
        tail = joined.length() <= TAIL_BYTES ? joined : joined.getBuffer(joined.length() - TAIL_BYTES,
                joined.length());
    }
}
