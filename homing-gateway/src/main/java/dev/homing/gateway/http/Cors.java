package dev.homing.gateway.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

import java.util.List;

/**
 * CORS as the reference does it: no configured origins allows any origin, method and header; a list allows only
 * those origins, GET/POST/OPTIONS, Content-Type and Authorization, and exposes {@code x-request-id}. Max-age 1 h.
 */
public final class Cors {

    private final List<String> origins;

    public Cors(List<String> origins) {
        this.origins = origins;
    }

    /**
     * The edge stage: adds the CORS headers to every answer and answers a preflight (204) itself, before access is
     * checked, as a browser sends a preflight without credentials.
     */
    public EdgeStage stage() {
        return new EdgeStage("cors", (request, match) -> addHeaders(request) ? Cors::answerPreflight : null);
    }

    private static void answerPreflight(HttpServerRequest request) {
        request.response().setStatusCode(204).end();
    }

    /** Adds the CORS headers; returns true when the request is a preflight, to answer with no more than them. */
    private boolean addHeaders(HttpServerRequest request) {
        String origin = request.getHeader("origin");
        HttpServerResponse response = request.response();
        boolean preflight = request.method() == HttpMethod.OPTIONS
                && request.getHeader("access-control-request-method") != null;
        if (origin != null) {
            if (origins.isEmpty()) {
                response.putHeader("access-control-allow-origin", "*");
                response.putHeader("access-control-expose-headers", "*");
                if (preflight) {
                    response.putHeader("access-control-allow-methods", "*");
                    response.putHeader("access-control-allow-headers", "*");
                }
            } else if (origins.contains(origin)) {
                response.putHeader("access-control-allow-origin", origin);
                response.putHeader("vary", "origin");
                response.putHeader("access-control-expose-headers", "x-request-id");
                if (preflight) {
                    response.putHeader("access-control-allow-methods", "GET, POST, OPTIONS");
                    response.putHeader("access-control-allow-headers", "content-type, authorization");
                }
            }
            if (preflight) {
                response.putHeader("access-control-max-age", "3600");
            }
        }
        return preflight;
    }
}
