package dev.homing.gateway.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.MultiMap;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted SGLang-like worker on a loopback ephemeral port, for behaviours a real engine cannot be made to show
 * on cue: failing with 500, hanging, streaming forever, or recording exactly what it received. Every inference
 * answer names the worker in an {@code x-worker} header so tests can see where a request went.
 *
 * <p>A fake prefill or decode worker ({@link #startPrefill}, {@link #startDecode}) honours the prefill/decode
 * contract: a request without bootstrap fields gets 400; a prefill answers one token with input log probabilities
 * and hands its room over ({@link FakeRooms}); a decode writes its head at once, waits for its room's handover (at
 * most {@link #roomTimeout}, then fails naming a {@code KVTransferError}) and answers as a regular worker does.
 *
 * <p>Held in a static {@code @RegisterExtension} field, a worker is shared by the tests of a class and closed after
 * them, once the class's own {@code @AfterAll} has run (so a gateway in front of it closes first).
 */
public final class FakeWorker implements AutoCloseable, AfterAllCallback {

    /** What a fake does for a request: all of it, or one leg of a prefill/decode pair. */
    public enum Role {
        REGULAR, PREFILL, DECODE
    }

    /** How the worker answers inference requests. */
    public enum Behaviour {
        /** A small JSON answer, or a short SSE stream when the request asks to stream. */
        NORMAL,
        /** 500 with a JSON error. */
        FAIL_500,
        /** 503 with a JSON error: overloaded or draining, worth asking elsewhere. */
        FAIL_503,
        /** 400 with a JSON error: the client's fault, not the worker's. */
        BAD_REQUEST,
        /** Starts an SSE stream, sends one event, then drops the connection. */
        BROKEN_STREAM,
        /** Never answers. */
        HANG,
        /** Answers like NORMAL after 300 ms. */
        SLOW,
        /** Streams an event every few milliseconds until the client goes away. */
        ENDLESS_STREAM,
        /** Streams as fast as the connection takes it (bounded to 256 MiB), noting when its write queue fills. */
        FLOOD,
        /** A prefill that hands its room over, sends a first chunk, then drops the connection after 300 ms. */
        BREAK_AFTER_HANDOFF,
        /** Reads the whole request, then closes the connection without a word: an engine that died running it. */
        CLOSE_AFTER_BODY
    }

    /** One request as the worker saw it. */
    public record Received(String method, String path, MultiMap headers, byte[] body) {
    }

    /** The SSE events a NORMAL stream sends, so tests can compare bytes. */
    public static final List<String> STREAM_EVENTS = List.of(
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\n\n",
            "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: [DONE]\n\n");

    private final HttpServer server;
    private final String host;
    private final String model;
    private final Role role;
    private final int bootstrapPort;
    private volatile long roomTimeoutMs = 5_000;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final AtomicInteger streamsCutByClient = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicBoolean sawBackpressure =
            new java.util.concurrent.atomic.AtomicBoolean();
    private volatile Behaviour behaviour = Behaviour.NORMAL;
    /** The JSON value /get_server_info gives as {@code kv_events_config}, or null for none. */
    private volatile String kvEventsConfig;
    private volatile boolean healthy = true;

    private FakeWorker(String model, Role role, int bootstrapPort, String host) {
        this.host = host;
        this.model = model;
        this.role = role;
        this.bootstrapPort = bootstrapPort;
        this.server = TestVertx.get().createHttpServer();
        server.requestHandler(this::handle);
    }

    public static FakeWorker start(String model) {
        return start(model, Role.REGULAR, 0);
    }

    /** A prefill worker that reports {@code bootstrapPort} in its server info (0: it reports none). */
    public static FakeWorker startPrefill(String model, int bootstrapPort) {
        return start(model, Role.PREFILL, bootstrapPort);
    }

    public static FakeWorker startDecode(String model) {
        return start(model, Role.DECODE, 0);
    }

    private static FakeWorker start(String model, Role role, int bootstrapPort) {
        return startAt("127.0.0.1", 0, model, role, bootstrapPort);
    }

    /**
     * A worker of {@code role} listening on {@code host}:{@code port} (0: a port the OS picks), as a pod's server
     * listens on its own address: discovery tests give each fake a loopback address of its own and one port.
     *
     * @throws IllegalStateException when the port cannot be bound
     */
    public static FakeWorker startAt(String host, int port, String model, Role role, int bootstrapPort) {
        FakeWorker worker = new FakeWorker(model, role, bootstrapPort, host);
        try {
            worker.server.listen(port, host).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            worker.server.close();
            throw new IllegalStateException(e);
        }
        return worker;
    }

    public int port() {
        return server.actualPort();
    }

    public String url() {
        return "http://" + host + ":" + server.actualPort();
    }

    public String model() {
        return model;
    }

    public void behaviour(Behaviour b) {
        this.behaviour = b;
    }

    /** How long a decode fake waits for its room's handover before it fails. */
    public void roomTimeout(java.time.Duration timeout) {
        this.roomTimeoutMs = timeout.toMillis();
    }

    /** What {@code /get_server_info} reports as {@code kv_events_config} (a JSON value), or null for nothing. */
    public void kvEventsConfig(String json) {
        kvEventsConfig = json;
    }

    public void healthy(boolean h) {
        this.healthy = h;
    }

    /** Inference requests received (admin and health calls are not kept). */
    public List<Received> received() {
        return received;
    }

    /** Streams that ended because the gateway closed the connection mid-stream. */
    public int streamsCutByClient() {
        return streamsCutByClient.get();
    }

    /** A FLOOD stream found its write queue full: whoever reads from it stopped reading. */
    public boolean sawBackpressure() {
        return sawBackpressure.get();
    }

    public void clear() {
        received.clear();
    }

    private void handle(HttpServerRequest req) {
        HttpServerResponse resp = req.response();
        switch (req.path()) {
            case "/health" -> resp.setStatusCode(healthy ? 200 : 503).end();
            case "/get_model_info" -> resp.putHeader("content-type", "application/json")
                    .end("{\"model_path\":\"" + model + "\",\"is_generation\":true}");
            case "/get_server_info" -> resp.putHeader("content-type", "application/json")
                    .end("{\"max_total_num_tokens\":100000,\"disaggregation_mode\":\""
                            + (role == Role.REGULAR ? "null" : role.name().toLowerCase(java.util.Locale.ROOT)) + "\""
                            + (bootstrapPort > 0 ? ",\"disaggregation_bootstrap_port\":" + bootstrapPort : "")
                            + (kvEventsConfig != null ? ",\"kv_events_config\":" + kvEventsConfig : "") + "}");
            case "/get_load" -> resp.putHeader("content-type", "application/json").end("{\"num_tokens\":7}");
            case "/flush_cache" -> resp.end("Cache flushed");
            case "/metrics" -> resp.end("# HELP sglang:num_running_reqs running\n# TYPE sglang:num_running_reqs gauge\n"
                    + "sglang:num_running_reqs{model_name=\"" + model + "\"} 3\n");
            default -> req.body().onSuccess(body -> inference(req, body));
        }
    }

    private void inference(HttpServerRequest req, Buffer body) {
        received.add(new Received(req.method().name(), req.path(), MultiMap.caseInsensitiveMultiMap()
                .addAll(req.headers()), body.getBytes()));
        HttpServerResponse resp = req.response().putHeader("x-worker", url());
        boolean stream = body.toString().replace(" ", "").contains("\"stream\":true");
        if (role != Role.REGULAR) {
            List<Long> rooms = FakeRooms.of(body.getBytes());
            if (rooms.isEmpty()) {
                resp.setStatusCode(400).putHeader("content-type", "application/json")
                        .end("{\"error\":{\"message\":\"a " + role + " engine needs the bootstrap fields\"}}");
                return;
            }
            if (role == Role.PREFILL && (behaviour == Behaviour.NORMAL || behaviour == Behaviour.BREAK_AFTER_HANDOFF)) {
                prefill(req, resp, rooms, stream);
                return;
            }
            if (role == Role.PREFILL && behaviour == Behaviour.SLOW) {
                TestVertx.get().setTimer(300, id -> prefill(req, resp, rooms, stream));
                return;
            }
            if (role == Role.DECODE && behaviour == Behaviour.NORMAL) {
                decode(resp, rooms, stream);
                return;
            }
        }
        switch (behaviour) {
            case FAIL_500 -> resp.setStatusCode(500).putHeader("content-type", "application/json")
                    .end("{\"error\":{\"message\":\"boom\"}}");
            case FAIL_503 -> resp.setStatusCode(503).putHeader("content-type", "application/json")
                    .end("{\"error\":{\"message\":\"overloaded\"}}");
            case BAD_REQUEST -> resp.setStatusCode(400).putHeader("content-type", "application/json")
                    .end("{\"error\":{\"message\":\"context too long\"}}");
            case BROKEN_STREAM -> {
                resp.setChunked(true).putHeader("content-type", "text/event-stream");
                resp.write(STREAM_EVENTS.getFirst()).onComplete(done -> req.connection().close());
            }
            case HANG, BREAK_AFTER_HANDOFF -> { }
            case CLOSE_AFTER_BODY -> req.connection().close();
            case SLOW -> TestVertx.get().setTimer(300, id -> resp.putHeader("content-type", "application/json")
                    .end(answer()));
            case ENDLESS_STREAM -> endless(resp);
            case FLOOD -> {
                resp.setChunked(true).putHeader("content-type", "text/event-stream");
                flood(resp, new long[] {0});
            }
            case NORMAL -> {
                if (stream) {
                    resp.setChunked(true).putHeader("content-type", "text/event-stream");
                    for (String event : STREAM_EVENTS) {
                        resp.write(event);
                    }
                    resp.end();
                } else {
                    resp.putHeader("content-type", "application/json").end(answer());
                }
            }
        }
    }

    /** A prefill's one-token answer: the room handed over, its usage reported. */
    private void prefill(HttpServerRequest req, HttpServerResponse resp, List<Long> rooms, boolean stream) {
        rooms.forEach(FakeRooms::handOver);
        String answer = "{\"text\":\"H\",\"meta_info\":{\"prompt_tokens\":5,\"cached_tokens\":3},"
                + "\"usage\":{\"prompt_tokens\":5,"
                + "\"completion_tokens\":1,\"prompt_tokens_details\":{\"cached_tokens\":3}}}";
        if (behaviour == Behaviour.BREAK_AFTER_HANDOFF) {
            resp.setChunked(true).putHeader("content-type", "text/event-stream").write("data: {\"text\":\"H\"}\n\n");
            TestVertx.get().setTimer(300, id -> req.connection().close());
        } else if (stream) {
            resp.setChunked(true).putHeader("content-type", "text/event-stream")
                    .end("data: " + answer + "\n\ndata: [DONE]\n\n");
        } else {
            resp.putHeader("content-type", "application/json").end(answer);
        }
    }

    /**
     * A decode's answer: the head at once (an engine streams its head before the KV is across), then the answer once
     * every room was handed over, or an error naming the room whose KV never came.
     */
    private void decode(HttpServerResponse resp, List<Long> rooms, boolean stream) {
        if (stream) {
            resp.setChunked(true).putHeader("content-type", "text/event-stream").writeHead();
        }
        long[] timer = {0};
        boolean[] over = {false};
        timer[0] = TestVertx.get().setTimer(roomTimeoutMs, id -> {
            if (over[0]) {
                return;
            }
            over[0] = true;
            String error = "KVTransferError(bootstrap_room=" + rooms.getFirst() + "): no prefill came";
            if (stream) {
                resp.end("data: {\"error\":{\"message\":\"" + error + "\"}}\n\n");
            } else {
                resp.setStatusCode(500).putHeader("content-type", "application/json")
                        .end("{\"error\":{\"message\":\"" + error + "\"}}");
            }
        });
        FakeRooms.handedOver(rooms).onSuccess(v -> {
            if (over[0] || resp.closed()) {
                return;
            }
            over[0] = true;
            TestVertx.get().cancelTimer(timer[0]);
            if (stream) {
                for (String event : STREAM_EVENTS) {
                    resp.write(event);
                }
                resp.end();
            } else {
                resp.putHeader("content-type", "application/json").end(decodeAnswer());
            }
        });
    }

    private String decodeAnswer() {
        return "{\"text\":\"Hello\","
                + "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":3}},\"worker\":\"" + url() + "\"}";
    }

    private String answer() {
        return "{\"id\":\"cmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"" + model + "\","
                + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},"
                + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1,"
                + "\"total_tokens\":6,\"prompt_tokens_details\":{\"cached_tokens\":2}},\"worker\":\"" + url() + "\"}";
    }

    private void flood(HttpServerResponse resp, long[] written) {
        Buffer chunk = Buffer.buffer("data: " + "y".repeat(16 * 1024) + "\n\n");
        while (!resp.writeQueueFull() && written[0] < 256L * 1024 * 1024 && !resp.closed()) {
            resp.write(chunk);
            written[0] += chunk.length();
        }
        if (resp.writeQueueFull()) {
            sawBackpressure.set(true);
            resp.drainHandler(v -> flood(resp, written));
        } else if (!resp.closed()) {
            resp.end();
        }
    }

    private void endless(HttpServerResponse resp) {
        resp.setChunked(true).putHeader("content-type", "text/event-stream");
        boolean[] over = {false};
        resp.closeHandler(v -> {
            if (!over[0]) {
                over[0] = true;
                streamsCutByClient.incrementAndGet();
            }
        });
        long timer = TestVertx.get().setPeriodic(5, id -> {
            if (over[0] || resp.closed()) {
                TestVertx.get().cancelTimer(id);
                return;
            }
            resp.write("data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n");
        });
        resp.exceptionHandler(err -> TestVertx.get().cancelTimer(timer));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        try {
            server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
