package dev.homing.bench.live;

import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.ChatMessage;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Objects;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the JSON body of one inference request for an {@link Endpoint}. Streaming requests ask for usage in the
 * stream ({@code stream_options.include_usage}), because the cached-token count that measures the prefix cache comes
 * from it. Completions and {@code /generate} get the chat rendered as one prompt by {@link ChatHistory#render}, so a
 * growing conversation is a growing prefix there too. Immutable; thread-safe.
 *
 * @param endpoint  the API shape to write
 * @param model     the {@code model} field; empty to leave it out (a single engine serves its own model)
 * @param stream    whether to ask for server-sent events
 * @param ignoreEos ask the engine to produce exactly the requested length (an SGLang and vLLM extension)
 */
public record RequestEncoder(Endpoint endpoint, String model, boolean stream, boolean ignoreEos) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public RequestEncoder {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(model, "model");
    }

    public byte[] encode(List<ChatMessage> messages, int maxOutputTokens) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 + 5 * approximateLength(messages) / 4);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            if (!model.isEmpty() && endpoint != Endpoint.GENERATE) {
                json.writeStringProperty("model", model);
            }
            switch (endpoint) {
                case CHAT -> {
                    json.writeName("messages");
                    json.writeStartArray();
                    for (ChatMessage message : messages) {
                        json.writeStartObject();
                        json.writeStringProperty("role", message.role());
                        json.writeStringProperty("content", message.content());
                        json.writeEndObject();
                    }
                    json.writeEndArray();
                    openAiTail(json, maxOutputTokens);
                }
                case COMPLETIONS -> {
                    json.writeStringProperty("prompt", ChatHistory.render(messages));
                    openAiTail(json, maxOutputTokens);
                }
                case GENERATE -> {
                    json.writeStringProperty("text", ChatHistory.render(messages));
                    json.writeName("sampling_params");
                    json.writeStartObject();
                    json.writeNumberProperty("max_new_tokens", maxOutputTokens);
                    if (ignoreEos) {
                        json.writeBooleanProperty("ignore_eos", true);
                    }
                    json.writeEndObject();
                    json.writeBooleanProperty("stream", stream);
                }
            }
            json.writeEndObject();
        }
        return out.toByteArray();
    }

    private void openAiTail(JsonGenerator json, int maxOutputTokens) {
        json.writeNumberProperty("max_tokens", maxOutputTokens);
        if (ignoreEos) {
            json.writeBooleanProperty("ignore_eos", true);
        }
        json.writeBooleanProperty("stream", stream);
        if (stream) {
            json.writeName("stream_options");
            json.writeStartObject();
            json.writeBooleanProperty("include_usage", true);
            json.writeEndObject();
        }
    }

    private static int approximateLength(List<ChatMessage> messages) {
        int length = 0;
        for (ChatMessage message : messages) {
            length += message.content().length() + 32;
        }
        return length;
    }
}
