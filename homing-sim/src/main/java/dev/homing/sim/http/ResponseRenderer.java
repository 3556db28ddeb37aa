package dev.homing.sim.http;

import dev.homing.sim.model.Logprobs;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.PseudoWords;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders answers in each {@link Api}'s shape, whole or as server-sent events, with honest usage: prompt tokens,
 * completion tokens and the prompt tokens found in the KV cache, and log probabilities when asked for (an input
 * token's only from an engine that computed the prompt). Stateless; thread-safe.
 */
final class ResponseRenderer {
    static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");

    private final ObjectMapper json;

    ResponseRenderer(ObjectMapper json) {
        this.json = json;
    }

    /**
     * Where one answer stands: identity, and its text and progress so far.
     *
     * @param seed           the seed of its output words, and so of their logprobs
     * @param index          its place in a batch request, or -1 for a request of one prompt
     * @param computedPrompt whether this engine computed the prompt (a decode engine did not: it has no input
     *                       logprobs to give)
     */
    record Answer(InferenceRequest request, String id, long createdSeconds, Progress progress, String text,
                  long seed, int index, boolean computedPrompt) {
    }

    /** The whole answer, for a request without streaming. */
    Buffer complete(Answer answer) {
        ObjectNode body = switch (answer.request().api()) {
            case GENERATE -> generateChunk(answer);
            case CHAT -> {
                ObjectNode chat = openAiHead(answer, "chat.completion");
                ObjectNode choice = onlyChoice(chat);
                putAssistantText(choice, "message", answer.text());
                chatLogprobs(choice, answer, 0);
                choice.put("finish_reason", "length");
                putUsage(chat, answer.progress());
                yield chat;
            }
            case COMPLETION -> {
                ObjectNode completion = openAiHead(answer, "text_completion");
                ObjectNode choice = onlyChoice(completion);
                choice.put("text", answer.text());
                completionLogprobs(choice, answer, 0);
                choice.put("finish_reason", "length");
                putUsage(completion, answer.progress());
                yield completion;
            }
            case RESPONSES -> responses(answer);
        };
        return Buffer.buffer(json.writeValueAsBytes(body));
    }

    /** A batch's answers, whole: a JSON array of one answer an item, in order, as SGLang answers a batch. */
    Buffer completeBatch(List<Answer> answers) {
        ArrayNode body = json.createArrayNode();
        for (Answer answer : answers) {
            body.add(generateChunk(answer));
        }
        return Buffer.buffer(json.writeValueAsBytes(body));
    }

    /** The first event of a stream, before any token, or null if the API has none. */
    Buffer streamStart(Answer answer) {
        return switch (answer.request().api()) {
            case CHAT -> {
                ObjectNode chunk = openAiHead(answer, "chat.completion.chunk");
                ObjectNode choice = onlyChoice(chunk);
                putAssistantText(choice, "delta", "");
                choice.putNull("finish_reason");
                yield event(chunk);
            }
            case RESPONSES -> {
                ObjectNode created = json.createObjectNode();
                created.put("type", "response.created");
                ObjectNode response = created.putObject("response");
                response.put("id", answer.id());
                response.put("object", "response");
                response.put("created_at", answer.createdSeconds());
                response.put("status", "in_progress");
                response.put("model", answer.request().model());
                response.putArray("output");
                yield namedEvent("response.created", created);
            }
            case GENERATE, COMPLETION -> null;
        };
    }

    /** An event carrying new output {@code delta}, from output token {@code from} on; the text is all so far. */
    Buffer streamDelta(Answer answer, String delta, int from) {
        boolean last = answer.progress().finished();
        return switch (answer.request().api()) {
            case GENERATE -> event(generateChunk(answer));
            case CHAT -> {
                ObjectNode chat = openAiHead(answer, "chat.completion.chunk");
                ObjectNode choice = onlyChoice(chat);
                choice.putObject("delta").put("content", delta);
                chatLogprobs(choice, answer, from);
                finishReason(choice, last);
                yield event(chat);
            }
            case COMPLETION -> {
                ObjectNode completion = openAiHead(answer, "text_completion");
                ObjectNode choice = onlyChoice(completion);
                choice.put("text", delta);
                completionLogprobs(choice, answer, from);
                finishReason(choice, last);
                yield event(completion);
            }
            case RESPONSES -> {
                ObjectNode text = json.createObjectNode();
                text.put("type", "response.output_text.delta");
                text.put("item_id", "msg_" + answer.id());
                text.put("output_index", 0);
                text.put("content_index", 0);
                text.put("delta", delta);
                yield namedEvent("response.output_text.delta", text);
            }
        };
    }

    /**
     * The events closing a stream: the usage chunk when asked for, then {@code [DONE]}; for the Responses API, the
     * completed response with its usage, which ends that stream.
     */
    Buffer streamEnd(Answer answer) {
        if (answer.request().api() == Api.RESPONSES) {
            ObjectNode completed = json.createObjectNode();
            completed.put("type", "response.completed");
            completed.set("response", responses(answer));
            return namedEvent("response.completed", completed);
        }
        Buffer end = Buffer.buffer();
        if (answer.request().includeUsage() && answer.request().api() != Api.GENERATE) {
            String object = answer.request().api() == Api.CHAT ? "chat.completion.chunk" : "text_completion";
            ObjectNode chunk = openAiHead(answer, object);
            chunk.putArray("choices");
            putUsage(chunk, answer.progress());
            end.appendBuffer(event(chunk));
        }
        return end.appendBuffer(DONE);
    }

    private ObjectNode generateChunk(Answer answer) {
        Progress progress = answer.progress();
        ObjectNode body = json.createObjectNode();
        if (answer.index() >= 0) {
            body.put("index", answer.index());
        }
        body.put("text", answer.text());
        ObjectNode meta = body.putObject("meta_info");
        meta.put("id", answer.id());
        if (progress.finished()) {
            ObjectNode reason = meta.putObject("finish_reason");
            reason.put("type", "length");
            reason.put("length", progress.completionTokens());
        } else {
            meta.putNull("finish_reason");
        }
        meta.put("prompt_tokens", progress.promptTokens());
        meta.put("completion_tokens", progress.completionTokens());
        meta.put("cached_tokens", progress.cachedTokens());
        meta.put("e2e_latency", (progress.atNanos() - progress.arrivalNanos()) / 1e9);
        if (answer.request().logprobs()) {
            generateLogprobs(meta, answer);
        }
        return body;
    }

    /**
     * SGLang's {@code [logprob, token_id, text]} triples (text null, as without {@code return_text_in_logprobs}):
     * every prompt token's when this engine computed the prompt (the first token's logprob is null, nothing predicts
     * it), none from a decode engine; and every output token's so far.
     */
    private void generateLogprobs(ObjectNode meta, Answer answer) {
        ArrayNode input = meta.putArray("input_token_logprobs");
        int[] prompt = answer.request().promptTokens();
        for (int i = 0; answer.computedPrompt() && i < prompt.length; i++) {
            ArrayNode triple = input.addArray();
            double logprob = Logprobs.ofPromptToken(prompt, i);
            if (Double.isNaN(logprob)) {
                triple.addNull();
            } else {
                triple.add(logprob);
            }
            triple.add(prompt[i]).addNull();
        }
        ArrayNode output = meta.putArray("output_token_logprobs");
        int total = answer.request().maxNewTokens();
        for (int i = 0; i < answer.progress().completionTokens(); i++) {
            output.addArray().add(Logprobs.ofOutputToken(answer.seed(), i)).add(PseudoWords.token(answer.seed(), i,
                total)).addNull();
        }
    }

    /** OpenAI chat's {@code logprobs.content}, one entry an output token from {@code from} on; none unless asked. */
    private static void chatLogprobs(ObjectNode choice, Answer answer, int from) {
        if (!answer.request().logprobs()) {
            return;
        }
        ArrayNode content = choice.putObject("logprobs").putArray("content");
        int total = answer.request().maxNewTokens();
        for (int i = from; i < answer.progress().completionTokens(); i++) {
            ObjectNode token = content.addObject();
            token.put("token", PseudoWords.word(answer.seed(), i, total));
            token.put("logprob", Logprobs.ofOutputToken(answer.seed(), i));
            token.putArray("top_logprobs");
        }
    }

    /** The legacy completion's {@code logprobs} of output tokens from {@code from} on, or null unless asked. */
    private static void completionLogprobs(ObjectNode choice, Answer answer, int from) {
        if (!answer.request().logprobs()) {
            choice.putNull("logprobs");
            return;
        }
        ObjectNode logprobs = choice.putObject("logprobs");
        ArrayNode tokens = logprobs.putArray("tokens");
        ArrayNode values = logprobs.putArray("token_logprobs");
        ArrayNode offsets = logprobs.putArray("text_offset");
        int total = answer.request().maxNewTokens();
        int offset = PseudoWords.text(answer.seed(), 0, from, total).length();
        for (int i = from; i < answer.progress().completionTokens(); i++) {
            String word = PseudoWords.word(answer.seed(), i, total);
            tokens.add(word);
            values.add(Logprobs.ofOutputToken(answer.seed(), i));
            offsets.add(offset);
            offset += word.length();
        }
        logprobs.putNull("top_logprobs");
    }

    private ObjectNode responses(Answer answer) {
        Progress progress = answer.progress();
        ObjectNode body = json.createObjectNode();
        body.put("id", answer.id());
        body.put("object", "response");
        body.put("created_at", answer.createdSeconds());
        body.put("status", "completed");
        body.put("model", answer.request().model());
        ObjectNode message = body.putArray("output").addObject();
        message.put("type", "message");
        message.put("id", "msg_" + answer.id());
        message.put("status", "completed");
        message.put("role", "assistant");
        ArrayNode content = message.putArray("content");
        ObjectNode text = content.addObject();
        text.put("type", "output_text");
        text.put("text", answer.text());
        text.putArray("annotations");
        ObjectNode usage = body.putObject("usage");
        usage.put("input_tokens", progress.promptTokens());
        usage.putObject("input_tokens_details").put("cached_tokens", progress.cachedTokens());
        usage.put("output_tokens", progress.completionTokens());
        usage.put("total_tokens", progress.promptTokens() + progress.completionTokens());
        return body;
    }

    private ObjectNode openAiHead(Answer answer, String object) {
        ObjectNode body = json.createObjectNode();
        body.put("id", answer.id());
        body.put("object", object);
        body.put("created", answer.createdSeconds());
        body.put("model", answer.request().model());
        return body;
    }

    /** The one choice an answer has, index 0, in its {@code choices} array. */
    private static ObjectNode onlyChoice(ObjectNode body) {
        ObjectNode choice = body.putArray("choices").addObject();
        choice.put("index", 0);
        return choice;
    }

    /** The assistant's {@code text} under {@code field} of a choice: its whole message, or a stream's first delta. */
    private static void putAssistantText(ObjectNode choice, String field, String text) {
        ObjectNode message = choice.putObject(field);
        message.put("role", "assistant");
        message.put("content", text);
    }

    private static void putUsage(ObjectNode body, Progress progress) {
        ObjectNode usage = body.putObject("usage");
        usage.put("prompt_tokens", progress.promptTokens());
        usage.put("completion_tokens", progress.completionTokens());
        usage.put("total_tokens", progress.promptTokens() + progress.completionTokens());
        usage.putObject("prompt_tokens_details").put("cached_tokens", progress.cachedTokens());
    }

    private static void finishReason(ObjectNode choice, boolean last) {
        if (last) {
            choice.put("finish_reason", "length");
        } else {
            choice.putNull("finish_reason");
        }
    }

    private Buffer namedEvent(String name, ObjectNode data) {
        return Buffer.buffer("event: " + name + "\n").appendBuffer(event(data));
    }

    private Buffer event(ObjectNode chunk) {
        return Buffer.buffer("data: ").appendBytes(json.writeValueAsBytes(chunk)).appendString("\n\n");
    }

    /** An error body in the OpenAI shape, which SGLang also uses. */
    Buffer error(int status, String message) {
        return Buffer.buffer(json.writeValueAsBytes(errorBody(status, message)));
    }

    /** The same error as the last event of a stream whose head has gone, then {@code [DONE]}, as SGLang ends one. */
    Buffer errorEvent(int status, String message) {
        return event(errorBody(status, message)).appendBuffer(DONE);
    }

    private ObjectNode errorBody(int status, String message) {
        ObjectNode body = json.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("message", message);
        error.put("type", status < 500 ? "BadRequestError" : "InternalServerError");
        error.put("code", status);
        return body;
    }
}
