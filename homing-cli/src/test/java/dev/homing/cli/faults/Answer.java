package dev.homing.cli.faults;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a client got for one request, and how the fault suite counts it: a success, a failure the client can see
 * and act on, or lost.
 *
 * @param requestId the {@code x-request-id} the client sent
 * @param stream    whether it asked for server-sent events
 * @param status    the HTTP status, 0 when no answer head arrived
 * @param retryAfter the {@code Retry-After} header, or null
 * @param body      the whole body received (empty when none)
 * @param failure   why the exchange broke off (connection reset, timeout), or null
 */
record Answer(String requestId, boolean stream, int status, String retryAfter, String body, String failure) {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final String ERROR_EVENT = "data: {\"error\":";
    private static final String DONE_EVENT = "data: [DONE]";

    /** How the fault suite counts an answer. */
    enum Outcome {
        /** A whole answer: 2xx JSON, or a stream that ended with {@code [DONE]}. */
        SUCCEEDED,
        /**
         * A failure the client is told of: a 4xx or 5xx with an OpenAI-shaped error body, or a stream that ends with
         * an SSE error event.
         */
        FAILED_CLEARLY,
        /** Anything else: no answer, a reset, a stream cut without an error event, an error without its shape. */
        LOST
    }

    static Answer broken(String requestId, boolean stream, Throwable failure) {
        return new Answer(requestId, stream, 0, null, "", failure.getClass().getSimpleName() + ": "
                + failure.getMessage());
    }

    Outcome outcome() {
        if (failure != null) {
            return Outcome.LOST;
        }
        if (status >= 400) {
            return isOpenAiError(body) ? Outcome.FAILED_CLEARLY : Outcome.LOST;
        }
        if (status / 100 != 2) {
            return Outcome.LOST;
        }
        if (stream) {
            if (body.contains(ERROR_EVENT)) {
                return Outcome.FAILED_CLEARLY;
            }
            return body.stripTrailing().endsWith(DONE_EVENT) ? Outcome.SUCCEEDED : Outcome.LOST;
        }
        return isJsonAnswer(body) ? Outcome.SUCCEEDED : Outcome.LOST;
    }

    /** A stream the client saw cut short with an error event. */
    boolean streamCutWithErrorEvent() {
        return stream && failure == null && status == 200 && body.contains(ERROR_EVENT);
    }

    /** {@code {"error":{"message","type","code"}}}. */
    static boolean isOpenAiError(String body) {
        try {
            JsonNode error = JSON.readTree(body).path("error");
            return error.path("message").isString() && error.has("type") && error.has("code");
        } catch (JacksonException e) {
            return false;
        }
    }

    private static boolean isJsonAnswer(String body) {
        try {
            JsonNode answer = JSON.readTree(body);
            return answer.isObject() && !answer.has("error");
        } catch (JacksonException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        String shown = body.length() > 300 ? body.substring(0, 150) + " ... " + body.substring(body.length() - 150)
                : body;
        return requestId + (stream ? " (stream)" : "") + ": " + status + " " + shown
                + (failure == null ? "" : " [" + failure + "]");
    }
}
