package dev.homing.gateway.workers;

import io.vertx.core.buffer.Buffer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;

/**
 * A worker answered a control-plane call with a status outside 2xx: the status and the start of the worker's own
 * body, so that whoever reports the failure can quote the worker (an engine that will not flush its cache while
 * requests run says so). The exception's message stays {@code HTTP <status>}, as it always read in logs.
 */
public final class UnexpectedStatus extends IllegalStateException {

    /** Plenty for an engine's error message; a larger body (an HTML error page) is cut here. */
    static final int MAX_BODY_BYTES = 4096;
    /** What of the worker's words an answer quotes: a sentence or two, never a page. */
    static final int MAX_MESSAGE_CHARS = 512;

    private static final JsonMapper JSON = JsonMapper.shared();

    private final int status;
    private final String path;
    private final String body;

    UnexpectedStatus(int status, Buffer body, String path) {
        super("HTTP " + status);
        this.status = status;
        this.path = path;
        int length = Math.min(body.length(), MAX_BODY_BYTES);
        this.body = new String(body.getBytes(0, length), StandardCharsets.UTF_8);
    }

    public int status() {
        return status;
    }

    /** The worker's path that was called: {@code /health}, {@code /flush_cache}. */
    public String path() {
        return path;
    }

    /** The start of the worker's body as text, at most {@link #MAX_BODY_BYTES} bytes of it; may be empty. */
    public String body() {
        return body;
    }

    /**
     * The worker's own words, at most {@link #MAX_MESSAGE_CHARS} characters: the message of a JSON error body
     * ({@code error.message} as OpenAI and the simulated engine write it, an {@code error} string,
     * {@code message}, or FastAPI's {@code detail}), else the body's text; {@code HTTP <status>} when the body says nothing.
     */
    public String workerMessage() {
        String text = body.strip();
        if (text.startsWith("{")) {
            text = messageOfJson(text);
        }
        if (text.isEmpty()) {
            return getMessage();
        }
        if (text.length() <= MAX_MESSAGE_CHARS) {
            return text;
        }
        int cut = MAX_MESSAGE_CHARS - 1;
        // Never half a surrogate pair.
        return text.substring(0, Character.isHighSurrogate(text.charAt(cut - 1)) ? cut - 1 : cut) + "…";
    }

    private static String messageOfJson(String text) {
        try {
            JsonNode json = JSON.readTree(text);
            for (JsonNode message : new JsonNode[] {json.path("error").path("message"), json.path("error"),
                    json.path("message"), json.path("detail")}) {
                if (message.isString() && !message.asString().isBlank()) {
                    return message.asString().strip();
                }
            }
        } catch (JacksonException e) {
            // Not JSON after all (or cut short at MAX_BODY_BYTES): the text itself is the message.
        }
        return text;
    }
}
