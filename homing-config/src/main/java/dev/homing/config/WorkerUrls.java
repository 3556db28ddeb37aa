package dev.homing.config;

import java.net.URI;
import java.net.URISyntaxException;

/** What a worker URL may look like: {@code http://host:port}, no path beyond "/", no query. */
public final class WorkerUrls {

    private WorkerUrls() {
    }

    /** The problem with {@code url} in words, or null if it is a usable worker URL. */
    public static String problem(String url) {
        URI uri = uri(url);
        if (uri == null) {
            return "'" + url + "' is not a URL";
        }
        String scheme = uri.getScheme();
        if ("grpc".equals(scheme)) {
            return "'" + url + "': gRPC workers are not supported yet; use an http:// URL";
        }
        if ("https".equals(scheme)) {
            return "'" + url + "': TLS to workers is not supported yet; use an http:// URL";
        }
        if (!"http".equals(scheme)) {
            return "'" + url + "' must start with http://";
        }
        if (uri.getHost() == null) {
            return "'" + url + "' has no host";
        }
        if (url.contains("@")) {
            return "'" + url + "': DP-aware worker URLs (url@rank) are not supported yet";
        }
        if (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/")
                || uri.getRawQuery() != null) {
            return "'" + url + "' must not have a path or query";
        }
        return null;
    }

    /** The URL without a trailing slash, so that it can serve as the worker's identity. */
    public static String normalize(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** {@code url} parsed, or null when it is not a URL. */
    static URI uri(String url) {
        try {
            return new URI(url);
        } catch (URISyntaxException e) {
            return null;
        }
    }
}
