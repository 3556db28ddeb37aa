package dev.homing.sim.http;

import dev.homing.tokenizer.ChatTemplateException;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.PromptTokenizer;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Reads inference request bodies of each {@link Api} into {@link InferenceRequest}s, their prompts tokenized by the
 * engine's {@link PromptTokenizer}, refusing malformed ones with a {@link BadRequest} that says what is wrong.
 * Stateless; thread-safe.
 */
final class RequestParser {
    /** SGLang's default when a request gives no output limit. */
    static final int DEFAULT_MAX_NEW_TOKENS = 128;
    /** Most samples of one prompt a request may ask for: a bound on the work one request makes. */
    static final int MAX_SAMPLES = 64;

    private final ObjectMapper json;
    private final String defaultModel;
    private final PromptTokenizer tokenizer;

    RequestParser(ObjectMapper json, String defaultModel, PromptTokenizer tokenizer) {
        this.json = json;
        this.defaultModel = defaultModel;
        this.tokenizer = tokenizer;
    }

    /** The tokens of a raw prompt, special tokens added as the engine adds them. */
    int[] encodeText(String text) {
        return tokenizer.encodeText(text);
    }

    int[] encodeText(String text, boolean addSpecialTokens) {
        return tokenizer.encodeText(text, addSpecialTokens);
    }

    /** The tokens of a chat, with the generation prompt; a chat its template refuses is a bad request. */
    int[] encodeChat(List<ChatTurn> turns) {
        return encodeChat(turns, true);
    }

    int[] encodeChat(List<ChatTurn> turns, boolean addGenerationPrompt) {
        try {
            return tokenizer.encodeChat(turns, addGenerationPrompt);
        } catch (ChatTemplateException e) {
            throw new BadRequest(e.getMessage());
        }
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

    /** An inference request's items, and whether it was a batch (answered with one answer an item). */
    record Parsed(List<InferenceRequest> items, boolean batch) {
    }

    Parsed parse(Api api, Buffer body) {
        JsonNode root = readObject(body);
        String model = model(root);
        boolean stream = bool(root, "stream");
        boolean includeUsage = bool(root.path("stream_options"), "include_usage");
        Integer rank = dataParallelRank(root.path("data_parallel_rank"));
        List<int[]> prompts;
        int maxNewTokens;
        boolean logprobs;
        boolean batch = false;
        switch (api) {
            case GENERATE -> {
                JsonNode sampling = root.path("sampling_params");
                prompts = generatePrompts(root);
                batch = root.path("text").isArray() || root.path("input_ids").path(0).isArray();
                int samples = samples(sampling.path("n"));
                batch |= samples > 1;
                prompts = repeated(prompts, samples);
                maxNewTokens = maxTokens(sampling, "max_new_tokens");
                logprobs = bool(root, "return_logprob");
                includeUsage = false;
            }
            case CHAT -> {
                prompts = List.of(encodeChat(messages(root.path("messages"))));
                maxNewTokens = maxTokens(root, "max_completion_tokens", "max_tokens");
                logprobs = bool(root, "logprobs");
            }
            case COMPLETION -> {
                prompts = List.of(completionPrompt(root.path("prompt")));
                maxNewTokens = maxTokens(root, "max_tokens");
                logprobs = completionLogprobs(root.path("logprobs"));
            }
            case RESPONSES -> {
                prompts = List.of(responsesPrompt(root.path("input")));
                maxNewTokens = maxTokens(root, "max_output_tokens");
                logprobs = false;
                includeUsage = false;
            }
            default -> throw new IllegalStateException("unknown API " + api);
        }
        List<InferenceRequest.Bootstrap> rooms = BootstrapFields.of(root, prompts.size());
        List<InferenceRequest> items = new ArrayList<>(prompts.size());
        for (int i = 0; i < prompts.size(); i++) {
            items.add(new InferenceRequest(api, prompts.get(i), maxNewTokens, stream, includeUsage, model, logprobs,
                rank, rooms == null ? null : rooms.get(i)));
        }
        return new Parsed(List.copyOf(items), batch);
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

    /** {@code text} (a string or an array of strings) or {@code input_ids} (token ids, or an array of them). */
    private List<int[]> generatePrompts(JsonNode root) {
        JsonNode text = root.path("text");
        JsonNode ids = root.path("input_ids");
        if (text.isString()) {
            return List.of(nonEmpty(encodeText(text.stringValue())));
        }
        if (text.isArray() && !text.isEmpty()) {
            List<int[]> prompts = new ArrayList<>(text.size());
            for (JsonNode item : text) {
                if (!item.isString()) {
                    throw new BadRequest("'text' must be a string or an array of strings");
                }
                prompts.add(nonEmpty(encodeText(item.stringValue())));
            }
            return prompts;
        }
        if (ids.isArray() && !ids.isEmpty() && ids.get(0).isArray()) {
            List<int[]> prompts = new ArrayList<>(ids.size());
            for (JsonNode item : ids) {
                prompts.add(tokenIds(item, "input_ids"));
            }
            return prompts;
        }
        if (ids.isArray()) {
            return List.of(tokenIds(ids, "input_ids"));
        }
        if (!text.isMissingNode() || !ids.isMissingNode()) {
            throw new BadRequest("'text' must be a string or a non-empty array of strings, 'input_ids' an array of "
                + "token ids or of arrays of them");
        }
        throw new BadRequest("either 'text' or 'input_ids' is required");
    }

    /** SGLang's order for {@code n} samples of each prompt: the whole list of prompts, {@code n} times over. */
    private static List<int[]> repeated(List<int[]> prompts, int samples) {
        List<int[]> items = new ArrayList<>(prompts.size() * samples);
        for (int i = 0; i < samples; i++) {
            items.addAll(prompts);
        }
        return items;
    }

    /** {@code sampling_params.n}: samples of each prompt, 1 when absent. */
    private static int samples(JsonNode n) {
        if (n.isMissingNode() || n.isNull()) {
            return 1;
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.intValue() < 1 || n.intValue() > MAX_SAMPLES) {
            throw new BadRequest("'n' must be an integer from 1 to " + MAX_SAMPLES);
        }
        return n.intValue();
    }

    /** {@code logprobs} of a completion: how many top alternatives, or null or absent for none. */
    private static boolean completionLogprobs(JsonNode logprobs) {
        if (logprobs.isMissingNode() || logprobs.isNull()) {
            return false;
        }
        if (!logprobs.isIntegralNumber() || !logprobs.canConvertToInt() || logprobs.intValue() < 0
            || logprobs.intValue() > 5) {
            throw new BadRequest("'logprobs' must be an integer from 0 to 5");
        }
        return true;
    }

    /** {@code data_parallel_rank}: null when absent; the range is the engine's to check. */
    private static Integer dataParallelRank(JsonNode rank) {
        if (rank.isMissingNode() || rank.isNull()) {
            return null;
        }
        if (!rank.isIntegralNumber() || !rank.canConvertToInt() || rank.intValue() < 0) {
            throw new BadRequest("'data_parallel_rank' must be a non-negative integer");
        }
        return rank.intValue();
    }

    private int[] completionPrompt(JsonNode prompt) {
        if (prompt.isString()) {
            return nonEmpty(encodeText(prompt.stringValue()));
        }
        if (prompt.isArray() && !prompt.isEmpty() && prompt.get(0).isIntegralNumber()) {
            return tokenIds(prompt, "prompt");
        }
        throw new BadRequest("'prompt' must be a string or an array of token ids (batches are not supported)");
    }

    private int[] responsesPrompt(JsonNode input) {
        if (input.isString()) {
            return encodeChat(List.of(new ChatTurn("user", input.stringValue())));
        }
        return encodeChat(messages(input));
    }

    List<ChatTurn> messages(JsonNode messages) {
        if (!messages.isArray() || messages.isEmpty()) {
            throw new BadRequest("'messages' must be a non-empty array");
        }
        List<ChatTurn> result = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            JsonNode role = message.path("role");
            if (!role.isString()) {
                throw new BadRequest("every message needs a string 'role'");
            }
            result.add(new ChatTurn(role.stringValue(), content(message.path("content"))));
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

    static boolean bool(JsonNode holder, String field) {
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
