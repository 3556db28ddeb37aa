package dev.homing.gateway.http;

import dev.homing.gateway.security.RouteAccess;
import io.vertx.core.http.HttpMethod;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A listener's route table: every route it serves, each declared once as a {@link Route}. Nothing else is served:
 * a path no route declares is a 404 and a declared path asked with another method a 405, so a handler is reachable
 * only through a route that says who may call it. Immutable and thread-safe; a lookup of an exact path is one hash
 * lookup, then the few parameterised patterns are tried, longest first.
 */
public final class Routes {

    /**
     * The edge stage that refuses what the table does not serve: 404 {@code not_found} for a path no route declares,
     * 405 {@code method_not_allowed} with {@code Allow} for a method the path's routes do not accept.
     */
    public static final EdgeStage STAGE = new EdgeStage("route", (request, match) -> {
        if (match.route() != null) {
            return null;
        }
        if (!match.declared()) {
            return EdgeStage.refusal(ApiError.notFound("No route for " + request.method().name() + " "
                    + request.path()));
        }
        return refused -> ApiError.sendMethodNotAllowed(refused.response(), match.metricLabel(), match.allow());
    });

    private final List<Route> routes;
    private final Map<String, PathRoutes> exact = new HashMap<>();
    private final List<PathRoutes> parameterised = new ArrayList<>();

    public Routes(List<Route> routes) {
        this.routes = List.copyOf(routes);
        Map<String, List<Route>> byPattern = new LinkedHashMap<>();
        for (Route route : this.routes) {
            byPattern.computeIfAbsent(route.pattern(), p -> new ArrayList<>()).add(route);
        }
        byPattern.forEach((pattern, declared) -> {
            PathRoutes path = new PathRoutes(pattern, declared);
            if (declared.getFirst().prefix() == null) {
                exact.put(pattern, path);
            } else {
                parameterised.add(path);
            }
        });
        parameterised.sort(Comparator.comparingInt((PathRoutes p) -> p.prefix.length()).reversed());
    }

    /** Every route, in the order declared. */
    public List<Route> all() {
        return routes;
    }

    /** This table and {@code more} routes after it. */
    public Routes with(List<Route> more) {
        List<Route> all = new ArrayList<>(routes);
        all.addAll(more);
        return new Routes(all);
    }

    public RouteMatch match(HttpMethod method, String path) {
        PathRoutes declared = exact.get(path);
        if (declared != null) {
            RouteMatch match = declared.exactMatches.get(method);
            return match != null ? match : declared.wrongMethod;
        }
        for (PathRoutes candidate : parameterised) {
            if (path.length() > candidate.prefix.length() && path.startsWith(candidate.prefix)) {
                return new RouteMatch(candidate.byMethod.get(method), candidate,
                        path.substring(candidate.prefix.length()));
            }
        }
        return RouteMatch.UNDECLARED;
    }

    /** The routes of one pattern: one for each method it accepts. */
    public static final class PathRoutes {

        private final String pattern;
        private final String prefix;
        private final Map<HttpMethod, Route> byMethod = new HashMap<>();
        /** For an exact pattern, its matches made once: most requests allocate none. */
        private final Map<HttpMethod, RouteMatch> exactMatches = new HashMap<>();
        private final RouteMatch wrongMethod;
        private final String allow;
        private final RouteAccess.Kind strictestAccess;
        private final String requestIdPrefix;

        private PathRoutes(String pattern, List<Route> routes) {
            this.pattern = pattern;
            this.prefix = routes.getFirst().prefix();
            for (Route route : routes) {
                if (byMethod.put(route.method(), route) != null) {
                    throw new IllegalArgumentException("two routes for " + route.method() + " " + pattern);
                }
                if (prefix == null) {
                    exactMatches.put(route.method(), new RouteMatch(route, this, null));
                }
            }
            this.wrongMethod = new RouteMatch(null, this, null);
            this.allow = routes.stream().map(r -> r.method().name()).collect(Collectors.joining(", "));
            this.strictestAccess = routes.stream().map(Route::access).max(Comparator.naturalOrder()).orElseThrow();
            this.requestIdPrefix = routes.getFirst().requestIdPrefix();
        }

        public String pattern() {
            return pattern;
        }

        /** The methods the pattern accepts, in the order declared: a 405's {@code Allow} header. */
        public String allow() {
            return allow;
        }

        /** The access of the pattern's strictest route, which guards a request with a method none accepts. */
        public RouteAccess.Kind strictestAccess() {
            return strictestAccess;
        }

        String requestIdPrefix() {
            return requestIdPrefix;
        }
    }
}
