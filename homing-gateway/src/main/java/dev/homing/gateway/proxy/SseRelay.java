package dev.homing.gateway.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerResponse;

/**
 * Relays the body of one worker's answer to the client as it arrives, chunk by chunk and unchanged: SSE events pass
 * through with no re-framing, a JSON answer passes as it comes. Backpressure in a few lines, as Netty's proxy
 * example does it: a client whose write queue is full pauses the worker's response, and its drain resumes it (the
 * diagram is with the streaming path, at {@link ExchangeLifecycle}). Every chunk also goes to a {@link UsageTail},
 * which keeps the answer's last two chunks for the usage the engine reports at the end. The listener hears of the
 * first chunk (the worker's first byte: its prefill is done), of the end and of a break.
 *
 * <p>A prefill/decode answer whose client asked for log probabilities is the one exception to "unchanged": its bytes
 * pass through a {@link Rewrite} that merges the prefill's input log probabilities into it.
 *
 * <p>Invariants: the upstream is paused whenever the client's write queue is full and resumed when it drains, so the
 * gateway holds at most a write queue per stream; once {@link #stop stopped} (its exchange ended), nothing more
 * reaches the client or the listener. Guarded by its state, which every event of the answer checks before it acts.
 * Not thread-safe: confined to its exchange's event loop.
 */
final class SseRelay {

    /** Changes an answer's bytes on their way to the client. */
    interface Rewrite {

        /** What to write for this chunk of the answer now (empty: nothing yet). */
        Buffer chunk(Buffer chunk);

        /** What is left to write once the answer has ended. */
        Buffer end();
    }

    /** What the exchange hears of the relay, on its event loop, until it stops the relay. */
    interface Listener {

        /** The first chunk of the answer arrived, just before it goes to the client. */
        void firstByte();

        /** The worker's answer ended whole. */
        void relayEnded();

        /** The worker broke off its answer. */
        void relayBroken(Throwable error);
    }

    private enum State {
        /** The head is out; no body chunk yet. */
        AWAITING_FIRST_CHUNK,
        /** Chunks are flowing. */
        STREAMING,
        /** The exchange ended: whatever still comes from the worker is dropped. */
        STOPPED
    }

    private final HttpServerResponse client;
    private final boolean eventStream;
    private final UsageTail usage = new UsageTail();
    /** Null: the bytes pass unchanged. */
    private final Rewrite rewrite;
    private State state = State.AWAITING_FIRST_CHUNK;

    /** Starts relaying {@code upstream}'s body to {@code client}, whose head the caller writes next. */
    SseRelay(HttpClientResponse upstream, HttpServerResponse client, Listener listener) {
        this(upstream, client, listener, null);
    }

    /** As {@link #SseRelay(HttpClientResponse, HttpServerResponse, Listener)}, through {@code rewrite}. */
    SseRelay(HttpClientResponse upstream, HttpServerResponse client, Listener listener, Rewrite rewrite) {
        this.client = client;
        this.rewrite = rewrite;
        this.eventStream = isEventStream(upstream);
        upstream.handler(chunk -> relay(upstream, chunk, listener));
        upstream.endHandler(v -> {
            if (state != State.STOPPED) {
                if (rewrite != null) {
                    write(rewrite.end());
                }
                listener.relayEnded();
            }
        });
        upstream.exceptionHandler(err -> {
            if (state != State.STOPPED) {
                listener.relayBroken(err);
            }
        });
    }

    private void relay(HttpClientResponse upstream, Buffer chunk, Listener listener) {
        if (state == State.STOPPED) {
            return;
        }
        if (state == State.AWAITING_FIRST_CHUNK) {
            state = State.STREAMING;
            listener.firstByte();
        }
        usage.saw(chunk);
        if (rewrite == null) {
            client.write(chunk);
        } else {
            write(rewrite.chunk(chunk));
        }
        if (client.writeQueueFull()) {
            upstream.pause();
            client.drainHandler(v -> upstream.resume());
        }
    }

    private void write(Buffer bytes) {
        if (bytes.length() > 0) {
            client.write(bytes);
        }
    }

    /** Whether an answer is an event stream by its content type. */
    static boolean isEventStream(HttpClientResponse upstream) {
        String contentType = upstream.getHeader(HttpHeaderNames.CONTENT_TYPE);
        return contentType != null && contentType.startsWith("text/event-stream");
    }

    /**
     * Whether the answer is an event stream: once its head is out, a failure can only be told the client as an SSE
     * error event.
     */
    boolean isEventStream() {
        return eventStream;
    }

    /** Whether the answer's last chunks hold {@code ascii}. */
    boolean tailMentions(String ascii) {
        return usage.mentions(ascii);
    }

    /** The usage the engine reported in the answer's tail, or null when there is none. */
    UsageTail.Usage usage() {
        return usage.scan();
    }

    /** The exchange ended: nothing more goes to the client or the listener. */
    void stop() {
        state = State.STOPPED;
    }
}
