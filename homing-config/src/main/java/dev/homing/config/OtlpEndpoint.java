package dev.homing.config;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * What {@code --otlp-traces-endpoint} may be, and the OTLP/HTTP URL it names: {@code host:port}, as the reference
 * writes it, posts to {@code http://host:port/v1/traces}; an {@code http://} or {@code https://} URL with no path
 * gets {@code /v1/traces}, one with a path is used as it is.
 */
public final class OtlpEndpoint {

    /** A collector's OTLP/HTTP port on the same host. */
    public static final String DEFAULT = "localhost:4318";
    /** OTLP/gRPC's port (the reference's default): a receiver there does not answer OTLP/HTTP. */
    public static final int GRPC_PORT = 4317;
    private static final String TRACES_PATH = "/v1/traces";
    private static final int MAX_PORT = 65_535;
    private static final String REQUIREMENT = "must be host:port or an http:// or https:// URL";

    private OtlpEndpoint() {
    }

    /** The problem with {@code endpoint} as a phrase completing the flag, or null if it names a receiver. */
    public static String problem(String endpoint) {
        return parse(endpoint) == null ? REQUIREMENT + ", got '" + endpoint + "'" : null;
    }

    /**
     * The URL the exporter posts traces to.
     *
     * @throws IllegalArgumentException if {@link #problem} finds one
     */
    public static URI url(String endpoint) {
        URI url = parse(endpoint);
        if (url == null) {
            throw new IllegalArgumentException(Settings.OTLP_TRACES_ENDPOINT.flag() + " " + problem(endpoint));
        }
        return url;
    }

    private static URI parse(String endpoint) {
        boolean bare = !endpoint.contains("://");
        URI uri;
        try {
            uri = new URI(bare ? "http://" + endpoint : endpoint);
        } catch (URISyntaxException e) {
            return null;
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        boolean web = "http".equals(uri.getScheme()) || "https".equals(uri.getScheme());
        if (!web || uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawFragment() != null
                || uri.getPort() > MAX_PORT
                || bare && (uri.getPort() < 0 || !path.isEmpty() || uri.getRawQuery() != null)) {
            return null;
        }
        return path.isEmpty() || path.equals("/") ? uri.resolve(TRACES_PATH) : uri;
    }
}
