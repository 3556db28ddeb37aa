package dev.homing.gateway.proxy;

import dev.homing.core.request.RequestKind;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The POST routes the gateway routes to a worker, each with its request-id prefix (as the reference names them) and
 * the kind of request it carries, whose rule gives the routing text.
 */
public enum InferenceRoute {
    GENERATE("/generate", "gnt-", RequestKind.GENERATE),
    CHAT("/v1/chat/completions", "chatcmpl-", RequestKind.CHAT),
    COMPLETIONS("/v1/completions", "cmpl-", RequestKind.COMPLETION),
    EMBEDDINGS("/v1/embeddings", "req-", RequestKind.EMBEDDING),
    RERANK("/v1/rerank", "req-", RequestKind.RERANK),
    RERANK_LEGACY("/rerank", "req-", RequestKind.RERANK),
    CLASSIFY("/v1/classify", "req-", RequestKind.EMBEDDING),
    RESPONSES("/v1/responses", "resp-", RequestKind.RESPONSES);

    private static final Map<String, InferenceRoute> BY_PATH =
            Stream.of(values()).collect(Collectors.toUnmodifiableMap(InferenceRoute::path, Function.identity()));

    private final String path;
    private final String requestIdPrefix;
    private final RequestKind kind;

    InferenceRoute(String path, String requestIdPrefix, RequestKind kind) {
        this.path = path;
        this.requestIdPrefix = requestIdPrefix;
        this.kind = kind;
    }

    public String path() {
        return path;
    }

    public String requestIdPrefix() {
        return requestIdPrefix;
    }

    public RequestKind kind() {
        return kind;
    }

    /**
     * Whether a prefill/decode pair serves the route: generation does; embeddings, rerank, classification and
     * responses have no decode phase to split off.
     */
    public boolean pairs() {
        return this == GENERATE || this == CHAT || this == COMPLETIONS;
    }

    /** The route for a request path, or null. */
    public static InferenceRoute of(String path) {
        return BY_PATH.get(path);
    }
}
