package dev.homing.bench.live;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends one inference request at a time per call and reports how it went: time to first token, the gaps between
 * text chunks, end time, usage and status ({@link RequestOutcome}). Every call's future completes exactly once and
 * never fails: a refused connection, a reset, an idle timeout, an error status or {@link #cancelAll} each end it
 * with their own {@link RequestOutcome.Status}.
 *
 * <p>Cheap per chunk, so the client is not what limits a fast server: server-sent events are split into lines
 * without decoding, and JSON is parsed only where a number or text is needed (the chunks up to the first one that
 * carries text, the usage chunk, the last {@code /generate} chunk, and every chunk when the caller keeps the text).
 *
 * <p>Confined to one Vert.x context: call {@link #send} and {@link #cancelAll} from the same event loop, where the
 * callbacks then run. For more cores, run one client per event loop.
 */
public final class LoadClient implements AutoCloseable {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Enough of an error body to say what went wrong, not so much that a large one costs memory. */
    private static final int ERROR_TEXT_CHARS = 200;
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    private final HttpClientAgent http;
    private final RequestOptions streamOptions;
    private final RequestOptions wholeOptions;
    private final Endpoint endpoint;
    private final Set<Exchange> inFlight = new LinkedHashSet<>();

    public LoadClient(Vertx vertx, LoadTarget target) {
        URI uri = target.uri();
        boolean ssl = "https".equals(uri.getScheme());
        int port = uri.getPort() > 0 ? uri.getPort() : ssl ? 443 : 80;
        this.endpoint = target.endpoint();
        this.http = vertx.createHttpClient(
                new HttpClientOptions().setSsl(ssl).setTcpNoDelay(true).setKeepAlive(true)
                        .setConnectTimeout(CONNECT_TIMEOUT_MILLIS).setName("homing-bench"),
                new PoolOptions().setHttp1MaxSize(target.maxConnections()).setMaxWaitQueueSize(-1));
        this.wholeOptions = requestOptions(target, uri, port, ssl, "application/json");
        this.streamOptions = requestOptions(target, uri, port, ssl, "text/event-stream");
    }

    private static RequestOptions requestOptions(LoadTarget target, URI uri, int port, boolean ssl, String accept) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost(uri.getHost()).setPort(port)
                .setSsl(ssl).setURI(target.requestPath()).setIdleTimeout(target.idleTimeout().toMillis())
                .putHeader("content-type", "application/json").putHeader("accept", accept);
        if (!target.apiKey().isEmpty()) {
            options.putHeader("authorization", "Bearer " + target.apiKey());
        }
        return options;
    }

    /**
     * Sends a request now; latencies count from {@code intendedNanos} (a {@link System#nanoTime()} value), which
     * an open-loop caller sets to when the request was due.
     */
    public Future<RequestOutcome> send(LoadRequest request, long intendedNanos) {
        Exchange exchange = new Exchange(request, intendedNanos);
        inFlight.add(exchange);
        exchange.start();
        return exchange.promise.future();
    }

    /** Requests sent and not yet ended. */
    public int inFlight() {
        return inFlight.size();
    }

    /** Ends every request in flight as {@link RequestOutcome.Status#CANCELLED} and resets its stream. */
    public void cancelAll() {
        for (Exchange exchange : List.copyOf(inFlight)) {
            exchange.cancel();
        }
    }

    @Override
    public void close() {
        cancelAll();
        http.close();
    }

    /** One request's way from send to outcome. Runs on the client's context. */
    private final class Exchange implements SseDataLines.PayloadHandler {
        private final LoadRequest request;
        private final long intendedNanos;
        private final Promise<RequestOutcome> promise = Promise.promise();
        private long sentNanos = -1;
        private HttpClientRequest httpRequest;
        private int status;
        private long firstTokenNanos = -1;
        private long lastTokenNanos;
        private long[] gaps = new long[16];
        private int gapCount;
        private int textChunks;
        private Usage usage;
        private RoutingNote routing;
        private StringBuilder text;
        private byte[] lastChunk;
        private int lastChunkLength;
        private SseDataLines lines;
        private boolean sawData;
        private boolean done;

        Exchange(LoadRequest request, long intendedNanos) {
            this.request = request;
            this.intendedNanos = intendedNanos;
        }

        void start() {
            sentNanos = System.nanoTime();
            http.request(request.stream() ? streamOptions : wholeOptions).onComplete(ar -> {
                if (ar.failed()) {
                    fail(ar.cause());
                    return;
                }
                httpRequest = ar.result();
                if (done) {
                    httpRequest.reset();
                    return;
                }
                httpRequest.send(Buffer.buffer(request.body())).onComplete(sent -> {
                    if (sent.failed()) {
                        fail(sent.cause());
                    } else if (!done) {
                        onResponse(sent.result());
                    }
                });
            });
        }

        private void onResponse(HttpClientResponse response) {
            status = response.statusCode();
            routing = RoutingNote.of(response.headers());
            if (status / 100 != 2) {
                response.body().onComplete(body -> {
                    String message = body.succeeded() ? body.result().toString(StandardCharsets.UTF_8) : "";
                    finish(RequestOutcome.Status.HTTP_ERROR,
                            message.length() > ERROR_TEXT_CHARS ? message.substring(0, ERROR_TEXT_CHARS) : message);
                });
                return;
            }
            response.exceptionHandler(this::fail);
            if (request.stream()) {
                lines = new SseDataLines();
                if (request.keepText() && !endpoint.streamsCumulativeText()) {
                    text = new StringBuilder();
                }
                response.handler(this::onPiece);
                response.endHandler(v -> onStreamEnd());
            } else {
                response.body().onComplete(body -> {
                    if (body.failed()) {
                        fail(body.cause());
                    } else {
                        onWholeAnswer(body.result());
                    }
                });
            }
        }

        private void onPiece(Buffer piece) {
            if (done) {
                return;
            }
            try {
                lines.feed(piece, this);
            } catch (SseDataLines.LineTooLong | JacksonException e) {
                invalid(e);
            }
        }

        @Override
        public void onData(byte[] bytes, int from, int to) {
            sawData = true;
            if (done || AnswerFields.isDone(bytes, from, to)) {
                return;
            }
            if (endpoint.streamsCumulativeText()) {
                // Each chunk repeats the text so far and its meta_info; only the last one is read, at the end.
                keepLastChunk(bytes, from, to);
                textArrived();
                return;
            }
            boolean hasUsage = AnswerFields.hasUsageObject(bytes, from, to);
            if (!hasUsage && firstTokenNanos >= 0 && text == null) {
                textArrived();
                return;
            }
            JsonNode chunk = JSON.readTree(bytes, from, to - from);
            if (hasUsage) {
                usage = AnswerFields.usage(chunk, endpoint);
            }
            String delta = AnswerFields.chunkText(chunk, endpoint);
            if (!delta.isEmpty()) {
                textArrived();
                if (text != null) {
                    text.append(delta);
                }
            }
        }

        private void textArrived() {
            long now = System.nanoTime();
            if (firstTokenNanos < 0) {
                firstTokenNanos = now;
            } else {
                if (gapCount == gaps.length) {
                    gaps = Arrays.copyOf(gaps, gapCount * 2);
                }
                gaps[gapCount++] = now - lastTokenNanos;
            }
            lastTokenNanos = now;
            textChunks++;
        }

        private void keepLastChunk(byte[] bytes, int from, int to) {
            int length = to - from;
            if (lastChunk == null || lastChunk.length < length) {
                lastChunk = new byte[Math.max(length, lastChunk == null ? 256 : lastChunk.length * 2)];
            }
            System.arraycopy(bytes, from, lastChunk, 0, length);
            lastChunkLength = length;
        }

        private void onStreamEnd() {
            if (done) {
                return;
            }
            if (!sawData) {
                // A 200 whose body is not an event stream (a JSON error, say) must not pass for an empty answer.
                finish(RequestOutcome.Status.INVALID_RESPONSE, "a streamed answer without any data event");
                return;
            }
            if (endpoint.streamsCumulativeText() && lastChunk != null) {
                succeedWith(() -> JSON.readTree(lastChunk, 0, lastChunkLength), AnswerFields::chunkText);
            } else {
                finish(RequestOutcome.Status.SUCCESS, null);
            }
        }

        private void onWholeAnswer(Buffer body) {
            succeedWith(() -> JSON.readTree(body.getBytes()), AnswerFields::answerText);
        }

        /** Takes the usage, and the text when the request keeps it, from the answer read; unreadable, it is invalid. */
        private void succeedWith(Supplier<JsonNode> answer, BiFunction<JsonNode, Endpoint, String> textOf) {
            try {
                JsonNode node = answer.get();
                usage = AnswerFields.usage(node, endpoint);
                if (request.keepText()) {
                    text = new StringBuilder(textOf.apply(node, endpoint));
                }
            } catch (JacksonException e) {
                invalid(e);
                return;
            }
            finish(RequestOutcome.Status.SUCCESS, null);
        }

        void cancel() {
            if (!done) {
                finish(RequestOutcome.Status.CANCELLED, "cancelled at the run's duration cap");
                if (httpRequest != null) {
                    httpRequest.reset();
                }
            }
        }

        private void invalid(Exception e) {
            finish(RequestOutcome.Status.INVALID_RESPONSE, e.getMessage());
            if (httpRequest != null) {
                httpRequest.reset();
            }
        }

        private void fail(Throwable cause) {
            RequestOutcome.Status kind = cause instanceof TimeoutException
                    ? RequestOutcome.Status.TIMEOUT : RequestOutcome.Status.CONNECTION;
            finish(kind, cause.getClass().getSimpleName() + ": " + cause.getMessage());
        }

        private void finish(RequestOutcome.Status outcome, String error) {
            if (done) {
                return;
            }
            done = true;
            inFlight.remove(this);
            promise.complete(new RequestOutcome(outcome, status, intendedNanos, sentNanos, firstTokenNanos,
                    System.nanoTime(), Arrays.copyOf(gaps, gapCount), textChunks, usage, routing,
                    text == null ? null : text.toString(), error));
        }
    }
}
