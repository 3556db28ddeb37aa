package dev.homing.gateway.kvevents;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where one worker's engine publishes its KV events, and how to read them.
 *
 * @param endpoint the ZMQ PUB socket to connect to ({@code tcp://host:port})
 * @param replay   the engine's ROUTER replay socket, or null when it offers none
 * @param topic    the topic filter to subscribe with ({@code ""}: every message)
 * @param layout   whose positional arrays the stream may carry
 */
public record KvEventEndpoint(String endpoint, String replay, String topic, KvEventDecoder.ArrayLayout layout) {

    /** The engines' default publisher port (rank 0). */
    static final int DEFAULT_PORT = 5557;

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern TCP = Pattern.compile("tcp://(\\[[^]]*]|[^:/]*):(\\d+)(.*)");

    /** The engines' default: {@code tcp://<host>:5557}, plus the rank. */
    public static KvEventEndpoint byDefault(String host, Integer dpRank) {
        return new KvEventEndpoint(at("tcp://*:" + DEFAULT_PORT, host, dpRank), null, "",
                KvEventDecoder.ArrayLayout.VLLM);
    }

    /** A template from {@code --kv-events}: {@code {host}} is the worker's host; the port moves by the rank. */
    public static KvEventEndpoint fromTemplate(String template, String host, Integer dpRank) {
        return new KvEventEndpoint(at(template.replace("{host}", bracketed(host)), host, dpRank), null, "",
                KvEventDecoder.ArrayLayout.VLLM);
    }

    /**
     * What a worker's {@code /get_server_info} says ({@code kv_events_config}: an object, or a JSON string of one,
     * with {@code endpoint}, optional {@code replay_endpoint} and {@code topic}); null when it says nothing. An
     * engine that answers this route speaks SGLang's API, hence SGLang's positional layout.
     */
    public static KvEventEndpoint fromServerInfo(byte[] serverInfo, String host, Integer dpRank) {
        JsonNode config = JSON.readTree(serverInfo).path("kv_events_config");
        if (config.isString()) {
            String text = config.asString();
            if (text.isBlank()) {
                return null;
            }
            config = JSON.readTree(text);
        }
        if (!config.isObject() || !config.path("endpoint").isString()) {
            return null;
        }
        String replay = config.path("replay_endpoint").isString() ? config.path("replay_endpoint").asString() : null;
        String topic = config.path("topic").isString() ? config.path("topic").asString() : "";
        return new KvEventEndpoint(at(config.path("endpoint").asString(), host, dpRank),
                replay == null || replay.isBlank() ? null : at(replay, host, dpRank), topic,
                KvEventDecoder.ArrayLayout.SGLANG);
    }

    /**
     * An engine's bind address made one to connect to: {@code *} or {@code 0.0.0.0} becomes the worker's host, and
     * a data-parallel rank publishes on the base port plus its rank (as vLLM and SGLang bind them).
     */
    static String at(String bindAddress, String host, Integer dpRank) {
        Matcher tcp = TCP.matcher(bindAddress);
        if (!tcp.matches()) {
            return bindAddress;
        }
        String address = tcp.group(1);
        if (address.equals("*") || address.equals("0.0.0.0") || address.equals("[::]") || address.isEmpty()) {
            address = bracketed(host);
        }
        int port = Integer.parseInt(tcp.group(2)) + (dpRank == null ? 0 : dpRank);
        return "tcp://" + address + ":" + port + tcp.group(3);
    }

    private static String bracketed(String host) {
        return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
