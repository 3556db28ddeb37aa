package dev.homing.gateway.cli;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.nio.charset.StandardCharsets;

/**
 * The worker a {@link ProxyWarmup} gateway routes to: an HTTP server on 127.0.0.1 that answers what registration asks
 * ({@code /health}, {@code /get_model_info}, {@code /get_server_info}, {@code /get_load}) and every inference path with
 * one short canned answer, in the engine's shape for its route (chat completion, completion, {@code /generate}): a
 * JSON body with its usage, or, when the body asks to stream, server-sent events ending in {@code [DONE]}. It does no
 * work of its own, so the warm-up's time goes to the gateway's side of each request.
 */
final class WarmupWorker implements AutoCloseable {

    static final String MODEL = "homing-warmup";
    private static final byte[] MODEL_INFO = bytes("{\"model_path\":\"" + MODEL + "\"}");
    private static final byte[] SERVER_INFO = bytes("{\"max_total_num_tokens\":1000000}");
    private static final byte[] LOAD = bytes("{\"num_tokens\":0}");
    private static final String USAGE = "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1,\"total_tokens\":13,"
            + "\"prompt_tokens_details\":{\"cached_tokens\":8}}";
    private static final byte[] CHAT = bytes("{\"id\":\"warmup\",\"object\":\"chat.completion\",\"created\":0,"
            + "\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
            + "\"Hi\"},\"finish_reason\":\"length\"}]," + USAGE + "}");
    private static final byte[] GENERATE = bytes("{\"text\":\"Hi\",\"meta_info\":{\"id\":\"warmup\","
            + "\"prompt_tokens\":12,\"completion_tokens\":1,\"cached_tokens\":8,"
            + "\"finish_reason\":{\"type\":\"length\"}}}");
    private static final byte[] COMPLETION = bytes("{\"id\":\"warmup\",\"object\":\"text_completion\",\"created\":0,"
            + "\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"text\":\"Hi\",\"finish_reason\":\"length\"}],"
            + USAGE + "}");
    private static final byte[] CHAT_EVENTS = bytes("data: {\"id\":\"warmup\",\"object\":"
            + "\"chat.completion.chunk\",\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
            + "\"Hi\"}}]}\n\n");
    private static final byte[] COMPLETION_EVENTS = bytes("data: {\"id\":\"warmup\",\"object\":\"text_completion\","
            + "\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"text\":\"Hi\"}]}\n\n");
    private static final byte[] LAST_EVENTS = bytes("data: {\"id\":\"warmup\",\"object\":"
            + "\"chat.completion.chunk\",\"model\":\"" + MODEL + "\",\"choices\":[]," + USAGE
            + "}\n\ndata: [DONE]\n\n");
    private static final byte[] GENERATE_EVENTS = bytes("data: " + new String(GENERATE, StandardCharsets.UTF_8)
            + "\n\ndata: [DONE]\n\n");

    private final HttpServer server;

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private WarmupWorker(HttpServer server) {
        this.server = server;
    }

    /** Listens on a free port of 127.0.0.1. */
    static Future<WarmupWorker> start(Vertx vertx) {
        HttpServer server = vertx.createHttpServer(new HttpServerOptions().setTcpNoDelay(true));
        server.requestHandler(WarmupWorker::answer);
        return server.listen(0, "127.0.0.1").map(WarmupWorker::new);
    }

    String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    private static void answer(HttpServerRequest request) {
        HttpServerResponse response = request.response();
        switch (request.path()) {
            case "/health", "/health_generate" -> response.end();
            case "/get_model_info" -> json(response, MODEL_INFO);
            case "/get_server_info" -> json(response, SERVER_INFO);
            case "/get_load" -> json(response, LOAD);
            default -> request.body().onSuccess(body -> {
                boolean stream = body.toString().contains("\"stream\":true");
                switch (request.path()) {
                    case "/generate" -> answer(response, stream, GENERATE, GENERATE_EVENTS);
                    case "/v1/completions" -> answer(response, stream, COMPLETION, COMPLETION_EVENTS, LAST_EVENTS);
                    default -> answer(response, stream, CHAT, CHAT_EVENTS, LAST_EVENTS);
                }
            });
        }
    }

    /** The whole answer, or its event chunks, one write each, the last ending the response. */
    private static void answer(HttpServerResponse response, boolean stream, byte[] whole, byte[]... chunks) {
        if (!stream) {
            json(response, whole);
            return;
        }
        response.setChunked(true).putHeader("content-type", "text/event-stream");
        for (int i = 0; i < chunks.length - 1; i++) {
            response.write(Buffer.buffer(chunks[i]));
        }
        response.end(Buffer.buffer(chunks[chunks.length - 1]));
    }

    /** A new buffer each time: writing a buffer hands its bytes to the channel, which consumes them. */
    private static void json(HttpServerResponse response, byte[] body) {
        response.putHeader("content-type", "application/json").end(Buffer.buffer(body));
    }

    @Override
    public void close() {
        server.close();
    }
}
