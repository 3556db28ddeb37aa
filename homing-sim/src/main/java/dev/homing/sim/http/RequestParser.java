package dev.homing.sim.http;

import dev.homing.sim.model.ChatMessage;
import dev.homing.sim.model.ChatTemplate;
import dev.homing.sim.model.Tokenizer;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Reads inference request bodies of each {@link Api} into {@link InferenceRequest}s, refusing malformed ones with a
 * {@link BadRequest} that says what is wrong. Stateless; thread-safe.
 */
final class RequestParser {
    /** SGLang's default when a request gives no output limit. */
    static final int DEFAULT_MAX_NEW_TOKENS = 128;

    private final ObjectMapper json;
    private final String defaultModel;

    RequestParser(ObjectMapper json, String defaultModel) {
        this.json = json;
        this.defaultModel = defaultModel;
    }

    JsonNode readObject(Buffer body) {
        JsonNode root;
        try {
            root = json.readTree(body.getBytes());
        } catch (JacksonException e) {
            throw new BadRequest("the body is not valid JSON");
        }
        if (root == null || !root.isObject()) {
            throw new BadRequest("the body must be a JSON object");
        }
        return root;
    }

    InferenceRequest parse(Api api, Buffer body) {
        JsonNode root = readObject(body);
        String model = model(root);
        boolean stream = bool(root, "stream");
        boolean includeUsage = bool(root.path("stream_options"), "include_usage");
        return switch (api) {
            case GENERATE -> new InferenceRequest(api, generatePrompt(root),
                maxTokens(root.path("sampling_params"), "max_new_tokens"), stream, false, model);
            case CHAT -> new InferenceRequest(api, ChatTemplate.encode(messages(root.path("messages"))),
                maxTokens(root, "max_completion_tokens", "max_tokens"), stream, includeUsage, model);
            case COMPLETION -> new InferenceRequest(api, completionPrompt(root.path("prompt")),
                maxTokens(root, "max_tokens"), stream, includeUsage, model);
            case RESPONSES -> new InferenceRequest(api, responsesPrompt(root.path("input")),
                maxTokens(root, "max_output_tokens"), stream, false, model);
        };
    }

    /** The model a request names, or the served one when it names none. */
    String model(JsonNode root) {
        return root.path("model").isString() ? root.path("model").stringValue() : defaultModel;
    }

    /** Texts to embed: a string or an array of strings. */
    List<String> texts(JsonNode input, String field) {
        List<String> texts = new ArrayList<>();
        if (input.isString()) {
            texts.add(input.stringValue());
        } else if (input.isArray() && !input.isEmpty()) {
            for (JsonNode item : input) {
                if (!item.isString()) {
                    throw new BadRequest("'" + field + "' must be a string or an array of strings");
                }
                texts.add(item.stringValue());
            }
        } else {
            throw new BadRequest("'" + field + "' must be a string or a non-empty array of strings");
        }
        return texts;
    }

    private int[] generatePrompt(JsonNode root) {
        JsonNode text = root.path("text");
        JsonNode ids = root.path("input_ids");
        if (text.isString()) {
            return nonEmpty(Tokenizer.encode(text.stringValue()));
        }
        if (ids.isArray()) {
            return tokenIds(ids, "input_ids");
        }
        if (text.isArray() || !root.path("input_ids").isMissingNode()) {
            throw new BadRequest("batch requests are not supported; send 'text' as a string or 'input_ids' as "
                + "an array of integers");
        }
        throw new BadRequest("either 'text' or 'input_ids' is required");
    }

    private int[] completionPrompt(JsonNode prompt) {
        if (prompt.isString()) {
            return nonEmpty(Tokenizer.encode(prompt.stringValue()));
        }
        if (prompt.isArray() && !prompt.isEmpty() && prompt.get(0).isIntegralNumber()) {
            return tokenIds(prompt, "prompt");
        }
        throw new BadRequest("'prompt' must be a string or an array of token ids (batches are not supported)");
    }

    private int[] responsesPrompt(JsonNode input) {
        if (input.isString()) {
            return ChatTemplate.encode(List.of(new ChatMessage("user", input.stringValue())));
        }
        return ChatTemplate.encode(messages(input));
    }

    private List<ChatMessage> messages(JsonNode messages) {
        if (!messages.isArray() || messages.isEmpty()) {
            throw new BadRequest("'messages' must be a non-empty array");
        }
        List<ChatMessage> result = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            JsonNode role = message.path("role");
            if (!role.isString()) {
                throw new BadRequest("every message needs a string 'role'");
            }
            result.add(new ChatMessage(role.stringValue(), content(message.path("content"))));
        }
        return result;
    }

    /** Message content: a string, null (an assistant turn with tool calls), or an array of text parts. */
    private static String content(JsonNode content) {
        if (content.isString()) {
            return content.stringValue();
        }
        if (content.isNull() || content.isMissingNode()) {
            return "";
        }
        if (content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode part : content) {
                JsonNode partText = part.path("text");
                if (partText.isString()) {
                    text.append(partText.stringValue());
                }
            }
            return text.toString();
        }
        throw new BadRequest("message 'content' must be a string or an array of parts");
    }

    private static int[] tokenIds(JsonNode array, String field) {
        int[] tokens = new int[array.size()];
        for (int i = 0; i < tokens.length; i++) {
            JsonNode id = array.get(i);
            if (!id.isIntegralNumber() || !id.canConvertToInt() || id.intValue() < 0) {
                throw new BadRequest("'" + field + "' must hold non-negative integer token ids");
            }
            tokens[i] = id.intValue();
        }
        return nonEmpty(tokens);
    }

    private static int[] nonEmpty(int[] tokens) {
        if (tokens.length == 0) {
            throw new BadRequest("the prompt is empty");
        }
        return tokens;
    }

    private static int maxTokens(JsonNode holder, String... fields) {
        for (String field : fields) {
            JsonNode value = holder.path(field);
            if (value.isMissingNode() || value.isNull()) {
                continue;
            }
            if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 0) {
                throw new BadRequest("'" + field + "' must be a non-negative integer");
            }
            return value.intValue();
        }
        return DEFAULT_MAX_NEW_TOKENS;
    }

    private static boolean bool(JsonNode holder, String field) {
        JsonNode value = holder.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw new BadRequest("'" + field + "' must be a boolean");
        }
        return value.booleanValue();
    }
}
