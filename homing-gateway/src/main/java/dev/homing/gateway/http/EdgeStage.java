package dev.homing.gateway.http;

import io.vertx.core.http.HttpServerRequest;

import java.util.List;

/**
 * One check a request passes at a listener's edge, after its route is looked up and before its handler runs: the
 * listener runs its stages in order, and the first that refuses answers the request. A stage that lets the request
 * on may still add to its answer (CORS its headers).
 *
 * @param name  what the stage checks, for reading and for tests
 * @param check the stage itself
 */
public record EdgeStage(String name, Check check) {

    /** Looks at a request and its route match: null lets it on, else how it is answered. */
    @FunctionalInterface
    public interface Check {
        Refusal check(HttpServerRequest request, RouteMatch match);
    }

    /** How a refused request is answered. */
    @FunctionalInterface
    public interface Refusal {
        void send(HttpServerRequest request);
    }

    /** The refusal of the first of {@code stages} that refuses the request, or null when all let it on. */
    public static Refusal firstRefusal(List<EdgeStage> stages, HttpServerRequest request, RouteMatch match) {
        for (EdgeStage stage : stages) {
            Refusal refusal = stage.check.check(request, match);
            if (refusal != null) {
                return refusal;
            }
        }
        return null;
    }

    /** The refusal that answers {@code error}, or null for none. */
    public static Refusal refusal(ApiError error) {
        return error == null ? null : request -> error.send(request.response());
    }
}
