package dev.homing.bench.live;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where a {@link LoadClient} sends requests and how it holds connections.
 *
 * @param baseUrl        the server, e.g. {@code http://127.0.0.1:30000}; a path in it prefixes the endpoint's
 * @param endpoint       the API shape and path
 * @param apiKey         sent as a bearer token; empty for none
 * @param maxConnections connections the client may open; requests beyond wait in the pool's queue (and the wait
 *                       counts in their latency)
 * @param idleTimeout    a request fails as a timeout when nothing arrives for this long
 */
public record LoadTarget(String baseUrl, Endpoint endpoint, String apiKey, int maxConnections, Duration idleTimeout) {

    public LoadTarget {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        URI uri = URI.create(baseUrl);
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("not an http(s) URL: " + baseUrl);
        }
        if (maxConnections <= 0 || idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("connections and idle timeout must be positive");
        }
    }

    URI uri() {
        return URI.create(baseUrl);
    }

    /** The request path: the base URL's path without a trailing slash, then the endpoint's. */
    String requestPath() {
        String base = uri().getRawPath() == null ? "" : uri().getRawPath();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return base + endpoint.path();
    }
}
