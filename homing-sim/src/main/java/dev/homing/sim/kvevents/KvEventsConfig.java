package dev.homing.sim.kvevents;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * SGLang's {@code --kv-events-config}, a JSON object with vLLM's field names: {@code publisher} ({@code zmq}, the
 * default once the object is given, or {@code null}: none), {@code endpoint} (the PUB socket, default
 * {@code tcp://*:5557}), {@code replay_endpoint} (the ROUTER socket, default none), {@code topic} (the first frame,
 * default empty), {@code buffer_steps} (batches kept for replay, default 10,000), {@code hwm} (the PUB socket's
 * high-water mark, default 100,000) and {@code max_queue_size} (batches waiting for the publisher's thread, default
 * 100,000). Unknown fields are ignored, as the engines' own parsers ignore fields of the other engine.
 */
public record KvEventsConfig(boolean publishes, ZmqEndpoint endpoint, ZmqEndpoint replayEndpoint, String topic,
                             int bufferSteps, int hwm, int maxQueueSize) {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public KvEventsConfig {
        if (bufferSteps < 1 || hwm < 0 || maxQueueSize < 1) {
            throw new IllegalArgumentException("buffer_steps and max_queue_size must be at least 1, hwm at least 0");
        }
    }

    /**
     * Reads the flag's JSON.
     *
     * @throws IllegalArgumentException naming what is wrong: not a JSON object, an unknown publisher, a bad endpoint
     */
    public static KvEventsConfig parse(String json) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("the KV events config is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("the KV events config is a JSON object, got '" + json + "'");
        }
        String publisher = text(root, "publisher", "zmq");
        if (!publisher.equals("zmq") && !publisher.equals("null")) {
            throw new IllegalArgumentException("the KV events publisher is zmq or null, got '" + publisher + "'");
        }
        String replay = text(root, "replay_endpoint", null);
        return new KvEventsConfig(publisher.equals("zmq"), ZmqEndpoint.parse(text(root, "endpoint", "tcp://*:5557")),
            replay == null ? null : ZmqEndpoint.parse(replay), text(root, "topic", ""),
            number(root, "buffer_steps", 10_000), number(root, "hwm", 100_000), number(root, "max_queue_size", 100_000));
    }

    private static String text(JsonNode root, String field, String absent) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return absent;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException("the KV events config's " + field + " is a string, got " + value);
        }
        return value.asString();
    }

    private static int number(JsonNode root, String field, int absent) {
        JsonNode value = root.get(field);
        if (value == null || value.isNull()) {
            return absent;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new IllegalArgumentException("the KV events config's " + field + " is an integer, got " + value);
        }
        return value.asInt();
    }
}
