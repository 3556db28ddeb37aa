package dev.homing.sim.http;

import io.vertx.core.buffer.Buffer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code /tokenize} in vLLM's shape: {@code {"prompt": "..."}} or {@code {"messages": [...]}} (with optional
 * {@code model}, {@code add_special_tokens}, {@code add_generation_prompt}) answered with
 * {@code {"count", "max_model_len", "tokens"}}, the tokens the engine would compute for that prompt. Stateless;
 * thread-safe.
 */
final class TokenizeAnswers {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final RequestParser parser;
    private final int maxModelLength;

    TokenizeAnswers(RequestParser parser, int maxModelLength) {
        this.parser = parser;
        this.maxModelLength = maxModelLength;
    }

    JsonNode tokenize(Buffer raw) {
        JsonNode root = parser.readObject(raw);
        JsonNode model = root.path("model");
        if (!model.isMissingNode() && !model.isNull() && !model.isString()) {
            throw new BadRequest("'model' must be a string");
        }
        JsonNode prompt = root.path("prompt");
        JsonNode messages = root.path("messages");
        if (prompt.isMissingNode() == messages.isMissingNode()) {
            throw new BadRequest("give either 'prompt' (a string) or 'messages' (a non-empty array), not both");
        }
        int[] tokens;
        try {
            if (!prompt.isMissingNode()) {
                if (!prompt.isString()) {
                    throw new BadRequest("'prompt' must be a string");
                }
                // vLLM's defaults: a raw prompt gets the special tokens, a chat's template writes its own.
                tokens = parser.encodeText(prompt.stringValue(), flag(root, "add_special_tokens", true));
            } else {
                refuse(root, "add_special_tokens", "messages");
                tokens = parser.encodeChat(parser.messages(messages), flag(root, "add_generation_prompt", true));
            }
        } catch (UnsupportedOperationException e) {
            throw new BadRequest(e.getMessage());
        }
        ObjectNode body = NODES.objectNode();
        body.put("count", tokens.length);
        body.put("max_model_len", maxModelLength);
        ArrayNode ids = body.putArray("tokens");
        for (int token : tokens) {
            ids.add(token);
        }
        return body;
    }

    private static boolean flag(JsonNode root, String field, boolean absent) {
        return root.path(field).isMissingNode() || root.path(field).isNull() ? absent : RequestParser.bool(root, field);
    }

    /** {@code add_special_tokens: true} with messages would add a second BOS: vLLM's chat form has it off. */
    private static void refuse(JsonNode root, String field, String with) {
        if (flag(root, field, false)) {
            throw new BadRequest("'" + field + "' is not supported with '" + with + "': the chat template writes "
                + "the special tokens");
        }
    }
}
