package dev.homing.gateway.http;

import dev.homing.gateway.security.RouteAccess;

/**
 * What a listener's table says of one request: its {@link Route}, or that the path is declared for other methods
 * only (405, {@link #allow}), or that it is not declared at all (404).
 *
 * @param route the route served, or null
 * @param path  the routes declared for the request's path pattern, or null when none is
 * @param param the pattern's parameter, undecoded, or null
 */
public record RouteMatch(Route route, Routes.PathRoutes path, String param) {

    /** The label of requests to paths no route declares, so that unknown paths share one metric series. */
    public static final String UNDECLARED_LABEL = "other";

    static final RouteMatch UNDECLARED = new RouteMatch(null, null, null);

    public boolean declared() {
        return path != null;
    }

    /** Who may call the path: the route's access, or for a wrong method the strictest of the path's routes. */
    public RouteAccess.Kind access() {
        return route != null ? route.access() : path != null ? path.strictestAccess() : RouteAccess.Kind.PUBLIC;
    }

    public String metricLabel() {
        return path == null ? UNDECLARED_LABEL : path.pattern();
    }

    public String requestIdPrefix() {
        return route != null ? route.requestIdPrefix() : path != null ? path.requestIdPrefix()
                : Route.DEFAULT_ID_PREFIX;
    }

    /** The methods the path accepts, for a 405's {@code Allow} header. */
    public String allow() {
        return path == null ? "" : path.allow();
    }
}
