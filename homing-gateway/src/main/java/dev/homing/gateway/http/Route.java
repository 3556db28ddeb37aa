package dev.homing.gateway.http;

import dev.homing.gateway.security.RouteAccess;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;

/**
 * One route of a listener's table ({@link Routes}): a method, a path pattern, who may call it, and what serves it.
 * Declared once; the dispatch, the {@code Allow} header of a 405, the access check and the metric label all come
 * from it.
 *
 * <p>A pattern is an exact path ({@code /v1/models}) or a prefix ending in one parameter ({@code /workers/{id}}),
 * which takes the rest of the path, slashes included, undecoded (a model id may be {@code org/name}). The pattern is
 * the route's metric label too, so a parameter never multiplies the series.
 *
 * @param requestIdPrefix what a generated request id starts with ({@code chatcmpl-} for chat, as the reference
 *                        names them; {@code req-} for most)
 */
public record Route(HttpMethod method, String pattern, RouteAccess.Kind access, String requestIdPrefix,
                    Handler handler) {

    /** The prefix of a generated request id on most routes. */
    public static final String DEFAULT_ID_PREFIX = "req-";

    /**
     * Serves a request that passed every edge stage. It owns the request from here: a handler that records the
     * request itself (an inference exchange) completes {@code record}; any other is made with {@link #answered}.
     * {@code record} is null on a listener that records no request (the metrics port).
     */
    @FunctionalInterface
    public interface Handler {
        /** @param param the pattern's parameter, undecoded, or null for an exact pattern */
        void serve(HttpServerRequest request, RequestRecord record, String param);
    }

    /** Answers a request; the request is recorded when its answer ends. */
    @FunctionalInterface
    public interface Answer {
        /** @param param the pattern's parameter, undecoded, or null for an exact pattern */
        void answer(HttpServerRequest request, String param);
    }

    public Route {
        if (!pattern.startsWith("/")) {
            throw new IllegalArgumentException("a route's pattern starts with '/': " + pattern);
        }
        int brace = pattern.indexOf('{');
        if (brace >= 0 && (pattern.charAt(brace - 1) != '/' || !pattern.endsWith("}")
                || pattern.indexOf('}') != pattern.length() - 1)) {
            throw new IllegalArgumentException("a route's pattern has at most one parameter, at its end: " + pattern);
        }
    }

    /** A route whose request is recorded when {@code answer}'s response ends. */
    public static Route answered(HttpMethod method, String pattern, RouteAccess.Kind access, Answer answer) {
        return new Route(method, pattern, access, DEFAULT_ID_PREFIX, (request, record, param) -> {
            if (record != null) {
                record.completeWhenEnded(request.response());
            }
            answer.answer(request, param);
        });
    }

    /** The metric label of the route's requests: its pattern. */
    public String metricLabel() {
        return pattern;
    }

    /** The fixed part of a parameterised pattern ({@code /workers/}), or null for an exact one. */
    String prefix() {
        int brace = pattern.indexOf('{');
        return brace < 0 ? null : pattern.substring(0, brace);
    }
}
