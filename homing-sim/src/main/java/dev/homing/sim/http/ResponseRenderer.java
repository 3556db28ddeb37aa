package dev.homing.sim.http;

import dev.homing.sim.model.Progress;
import io.vertx.core.buffer.Buffer;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Renders answers in each {@link Api}'s shape, whole or as server-sent events, with honest usage: prompt tokens,
 * completion tokens and the prompt tokens found in the KV cache. Stateless; thread-safe.
 */
final class ResponseRenderer {
    static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");

    private final ObjectMapper json;

    ResponseRenderer(ObjectMapper json) {
        this.json = json;
    }

    /** Where one answer stands: identity, and its text and progress so far. */
    record Answer(InferenceRequest request, String id, long createdSeconds, Progress progress, String text) {
    }

    /** The whole answer, for a request without streaming. */
    Buffer complete(Answer answer) {
        ObjectNode body = switch (answer.request().api()) {
            case GENERATE -> generateChunk(answer);
            case CHAT -> {
                ObjectNode chat = openAiHead(answer, "chat.completion");
                ObjectNode choice = onlyChoice(chat);
                putAssistantText(choice, "message", answer.text());
                choice.put("finish_reason", "length");
                putUsage(chat, answer.progress());
                yield chat;
            }
            case COMPLETION -> {
                ObjectNode completion = openAiHead(answer, "text_completion");
                ObjectNode choice = onlyChoice(completion);
                choice.put("text", answer.text());
                choice.putNull("logprobs");
                choice.put("finish_reason", "length");
                putUsage(completion, answer.progress());
                yield completion;
            }
            case RESPONSES -> responses(answer);
        };
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

    /** An event carrying new output {@code delta}; the answer's text is everything so far. */
    Buffer streamDelta(Answer answer, String delta) {
        boolean last = answer.progress().finished();
        return switch (answer.request().api()) {
            case GENERATE -> event(generateChunk(answer));
            case CHAT -> {
                ObjectNode chat = openAiHead(answer, "chat.completion.chunk");
                ObjectNode choice = onlyChoice(chat);
                choice.putObject("delta").put("content", delta);
                finishReason(choice, last);
                yield event(chat);
            }
            case COMPLETION -> {
                ObjectNode completion = openAiHead(answer, "text_completion");
                ObjectNode choice = onlyChoice(completion);
                choice.put("text", delta);
                choice.putNull("logprobs");
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
        return body;
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
        ObjectNode body = json.createObjectNode();
        ObjectNode error = body.putObject("error");
        error.put("message", message);
        error.put("type", status < 500 ? "BadRequestError" : "InternalServerError");
        error.put("code", status);
        return Buffer.buffer(json.writeValueAsBytes(body));
    }
}
