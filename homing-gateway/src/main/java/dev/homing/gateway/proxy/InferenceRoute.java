package dev.homing.gateway.proxy;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The POST routes the gateway routes to a worker, each with its request-id prefix (as the reference names them). */
public enum InferenceRoute {
    GENERATE("/generate", "gnt-"),
    CHAT("/v1/chat/completions", "chatcmpl-"),
    COMPLETIONS("/v1/completions", "cmpl-"),
    EMBEDDINGS("/v1/embeddings", "req-"),
    RERANK("/v1/rerank", "req-"),
    RERANK_LEGACY("/rerank", "req-"),
    CLASSIFY("/v1/classify", "req-"),
    RESPONSES("/v1/responses", "resp-");

    private static final Map<String, InferenceRoute> BY_PATH =
            Stream.of(values()).collect(Collectors.toUnmodifiableMap(InferenceRoute::path, Function.identity()));

    private final String path;
    private final String requestIdPrefix;

    InferenceRoute(String path, String requestIdPrefix) {
        this.path = path;
        this.requestIdPrefix = requestIdPrefix;
    }

    public String path() {
        return path;
    }

    public String requestIdPrefix() {
        return requestIdPrefix;
    }

    /** The route for a request path, or null. */
    public static InferenceRoute of(String path) {
        return BY_PATH.get(path);
    }
}
