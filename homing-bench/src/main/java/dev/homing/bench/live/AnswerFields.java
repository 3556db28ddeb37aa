package dev.homing.bench.live;

import tools.jackson.databind.JsonNode;

/**
 * Reads the few fields a load run needs from an answer or a streamed chunk, in each {@link Endpoint}'s shape. Pure
 * functions.
 */
final class AnswerFields {

    private static final byte[] USAGE = "\"usage\"".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private AnswerFields() {
    }

    /** The usage counts in a whole answer or in a usage chunk, or null when it has none. */
    static Usage usage(JsonNode answer, Endpoint endpoint) {
        if (endpoint == Endpoint.GENERATE) {
            JsonNode meta = answer.path("meta_info");
            if (!meta.path("prompt_tokens").isNumber()) {
                return null;
            }
            return new Usage(meta.path("prompt_tokens").asLong(), meta.path("completion_tokens").asLong(),
                    meta.path("cached_tokens").isNumber() ? meta.path("cached_tokens").asLong() : -1);
        }
        JsonNode usage = answer.path("usage");
        if (!usage.isObject()) {
            return null;
        }
        JsonNode cached = usage.path("prompt_tokens_details").path("cached_tokens");
        return new Usage(usage.path("prompt_tokens").asLong(), usage.path("completion_tokens").asLong(),
                cached.isNumber() ? cached.asLong() : -1);
    }

    /** The text a streamed chunk carries (new text, or all text so far for {@code /generate}); empty for none. */
    static String chunkText(JsonNode chunk, Endpoint endpoint) {
        return switch (endpoint) {
            case CHAT -> chunk.path("choices").path(0).path("delta").path("content").asString("");
            case COMPLETIONS -> chunk.path("choices").path(0).path("text").asString("");
            case GENERATE -> chunk.path("text").asString("");
        };
    }

    /** The text of a whole (not streamed) answer. */
    static String answerText(JsonNode answer, Endpoint endpoint) {
        return switch (endpoint) {
            case CHAT -> answer.path("choices").path(0).path("message").path("content").asString("");
            case COMPLETIONS -> answer.path("choices").path(0).path("text").asString("");
            case GENERATE -> answer.path("text").asString("");
        };
    }

    /**
     * Whether a chunk holds a {@code "usage"} object (not {@code null}), found by scanning bytes: chunks that carry
     * only text are then counted without parsing them.
     */
    static boolean hasUsageObject(byte[] bytes, int from, int to) {
        outer:
        for (int i = from; i + USAGE.length <= to; i++) {
            for (int k = 0; k < USAGE.length; k++) {
                if (bytes[i + k] != USAGE[k]) {
                    continue outer;
                }
            }
            int j = i + USAGE.length;
            while (j < to && (bytes[j] == ' ' || bytes[j] == ':' || bytes[j] == '\t')) {
                j++;
            }
            if (j < to && bytes[j] == '{') {
                return true;
            }
        }
        return false;
    }

    static boolean isDone(byte[] bytes, int from, int to) {
        return to - from == 6 && bytes[from] == '[' && bytes[from + 1] == 'D' && bytes[from + 2] == 'O'
                && bytes[from + 3] == 'N' && bytes[from + 4] == 'E' && bytes[from + 5] == ']';
    }
}
