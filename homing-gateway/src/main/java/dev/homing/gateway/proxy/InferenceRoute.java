package dev.homing.gateway.proxy;

import dev.homing.core.request.RequestKind;

import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The POST routes the gateway routes to a worker, each with the kind of request it carries, whose rule gives the
 * routing text and the request-id prefix.
 */
public enum InferenceRoute {
    GENERATE("/generate", RequestKind.GENERATE),
    CHAT("/v1/chat/completions", RequestKind.CHAT),
    COMPLETIONS("/v1/completions", RequestKind.COMPLETION),
    EMBEDDINGS("/v1/embeddings", RequestKind.EMBEDDING),
    RERANK("/v1/rerank", RequestKind.RERANK),
    RERANK_LEGACY("/rerank", RequestKind.RERANK),
    CLASSIFY("/v1/classify", RequestKind.EMBEDDING),
    RESPONSES("/v1/responses", RequestKind.RESPONSES);

    private static final Map<String, InferenceRoute> BY_PATH =
            Stream.of(values()).collect(Collectors.toUnmodifiableMap(InferenceRoute::path, Function.identity()));

    private final String path;
    private final RequestKind kind;

    InferenceRoute(String path, RequestKind kind) {
        this.path = path;
        this.kind = kind;
    }

    public String path() {
        return path;
    }

    /** The prefix of the ids the gateway gives its requests, as the reference names them for each kind. */
    public String requestIdPrefix() {
        return switch (kind) {
            case GENERATE -> "gnt-";
            case CHAT -> "chatcmpl-";
            case COMPLETION -> "cmpl-";
            case RESPONSES -> "resp-";
            case EMBEDDING, RERANK -> "req-";
        };
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
