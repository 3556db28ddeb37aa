package dev.homing.gateway.kvevents;

import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.PromptTokenizer;
import dev.homing.tokenizer.TokenRuns;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.BooleanNode;

import java.util.ArrayList;
import java.util.List;

/**
 * A request's prompt in the form the engine tokenizes it: a chat (its template applies), a raw text, or token ids
 * given by the client. Read from the body only when the model routes on an exact view; the first prompt of a batch
 * stands for the request, as the routing text's rule has it.
 */
public sealed interface EnginePrompt {

    /** A chat's turns, as its template sees them: each message's role and its text parts joined. */
    record Chat(List<ChatTurn> turns) implements EnginePrompt {
    }

    /** A raw prompt ({@code /generate}'s {@code text}, a completion's {@code prompt}). */
    record Text(String text) implements EnginePrompt {
    }

    /** Token ids the client sent ({@code input_ids}, a completion's token prompt): no tokenizer needed. */
    record Tokens(int[] ids) implements EnginePrompt {
    }

    JsonMapper JSON = JsonMapper.builder().build();

    /** What a request may give the chat template besides its messages. */
    List<String> TEMPLATE_INPUTS = List.of("tools", "functions", "chat_template_kwargs", "documents", "chat_template");

    /** The tokens of this prompt as {@code tokenizer} makes them. */
    default int[] tokens(PromptTokenizer tokenizer) {
        return switch (this) {
            case Chat chat -> tokenizer.encodeChat(chat.turns());
            case Text text -> tokenizer.encodeText(text.text());
            case Tokens tokens -> tokens.ids();
        };
    }

    /**
     * The tokens of this prompt handed to {@code runs} as {@code tokenizer} encodes them, until {@code runs} stops;
     * returns the share of the prompt's text they cover (1 when all of it).
     */
    default double tokensInRuns(PromptTokenizer tokenizer, TokenRuns runs) {
        return switch (this) {
            case Chat chat -> tokenizer.encodeChatInRuns(chat.turns(), runs);
            case Text text -> tokenizer.encodeTextInRuns(text.text(), runs);
            case Tokens tokens -> {
                runs.accept(tokens.ids());
                yield 1;
            }
        };
    }

    /**
     * The prompt of a body the sniffer already accepted, or null for a kind of request, or a shape, that no engine
     * caches by prefix the gateway can name (embeddings, rerank, responses, an empty prompt).
     */
    static EnginePrompt read(RequestKind kind, ByteSlice body) {
        JsonNode root = parse(body);
        return root == null ? null : of(kind, root);
    }

    /** The body's JSON tree, or null where it is not JSON. */
    static JsonNode parse(ByteSlice body) {
        try {
            return JSON.readTree(body.array(), body.offset(), body.length());
        } catch (JacksonException e) {
            return null;
        }
    }

    /** The prompt of a parsed body, as {@link #read}. */
    static EnginePrompt of(RequestKind kind, JsonNode root) {
        return switch (kind) {
            case CHAT -> rendersOnlyMessages(root) ? chat(root.path("messages")) : null;
            case COMPLETION -> textOrIds(root.path("prompt"));
            case GENERATE -> root.has("text") ? textOrIds(root.path("text")) : textOrIds(root.path("input_ids"));
            default -> null;
        };
    }

    /**
     * Whether the chat template reads nothing of this request but its messages' roles and text, the chat this
     * gateway renders, with the generation prompt. Tools, template arguments, documents, a template of the request's
     * own, a message's tool calls or reasoning, or an image, audio or other part that is not text are written into
     * the prompt by the engine's template (and its processor), and a prompt rendered without them would match
     * nothing the engines hold; a chat rendered without the generation prompt, or continuing its last message, ends
     * otherwise: such a request has no exact view and is routed on the tree, and says so.
     */
    private static boolean rendersOnlyMessages(JsonNode root) {
        for (String field : TEMPLATE_INPUTS) {
            if (present(root.path(field))) {
                return false;
            }
        }
        if (BooleanNode.FALSE.equals(root.path("add_generation_prompt"))
                || BooleanNode.TRUE.equals(root.path("continue_final_message"))) {
            return false;
        }
        for (JsonNode message : root.path("messages")) {
            if (present(message.path("tool_calls")) || present(message.path("function_call"))
                    || present(message.path("reasoning_content")) || hasPartBesidesText(message.path("content"))) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasPartBesidesText(JsonNode content) {
        if (!content.isArray()) {
            return false;
        }
        for (JsonNode part : content) {
            if (!"text".equals(part.path("type").asString("text"))) {
                return true;
            }
        }
        return false;
    }

    /** A value that is there and not empty (null, "", [] and {} count as absent, as the engines read them). */
    private static boolean present(JsonNode node) {
        return !(node.isMissingNode() || node.isNull() || (node.isContainer() && node.isEmpty())
                || (node.isString() && node.asString().isEmpty()));
    }

    private static EnginePrompt chat(JsonNode messages) {
        if (!messages.isArray() || messages.isEmpty()) {
            return null;
        }
        List<ChatTurn> turns = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            turns.add(new ChatTurn(message.path("role").asString(""), content(message.path("content"))));
        }
        return new Chat(turns);
    }

    /** A message's text: a string, or its parts' {@code text} joined, as templates that flatten parts do. */
    private static String content(JsonNode content) {
        if (content.isString()) {
            return content.asString();
        }
        if (!content.isArray()) {
            return "";
        }
        StringBuilder text = new StringBuilder();
        for (JsonNode part : content) {
            if (part.path("text").isString()) {
                text.append(part.path("text").asString());
            }
        }
        return text.toString();
    }

    private static EnginePrompt textOrIds(JsonNode prompt) {
        if (prompt.isString()) {
            return prompt.asString().isEmpty() ? null : new Text(prompt.asString());
        }
        if (!prompt.isArray() || prompt.isEmpty()) {
            return null;
        }
        JsonNode first = prompt.get(0);
        if (first.isString() || first.isArray()) {
            return textOrIds(first); // a batch: its first prompt stands for it
        }
        int[] ids = new int[prompt.size()];
        for (int i = 0; i < ids.length; i++) {
            if (!prompt.get(i).isInt()) {
                return null;
            }
            ids[i] = prompt.get(i).intValue();
        }
        return new Tokens(ids);
    }
}
