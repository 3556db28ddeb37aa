package dev.homing.gateway.workers;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;

import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;

/**
 * Where a worker's requests go, worked out once from its URL: the server address, host, port, TLS flag and base
 * path that {@code RequestOptions.setAbsoluteURI} would otherwise re-parse from a concatenated string on every
 * request. Immutable.
 *
 * @param server        the socket address the HTTP client pools connections by
 * @param host          the host as the URL spells it (the Host header)
 * @param port          the port, 80 or 443 when the URL gives none
 * @param ssl           whether the URL is https
 * @param basePath      the URL's path ("" for {@code http://host:port}); request paths are appended to it
 * @param authorization the {@code Authorization} header value for the worker's own API key, or null
 */
public record UpstreamTarget(SocketAddress server, String host, int port, boolean ssl, String basePath,
                             String authorization) {

    /**
     * The target of a worker URL, as {@code setAbsoluteURI} reads it.
     *
     * @throws IllegalArgumentException if {@code url} is not an http(s) URL
     */
    public static UpstreamTarget of(String url, String apiKey) {
        URL parsed;
        try {
            parsed = URI.create(url).toURL();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a worker URL: " + url, e);
        }
        boolean ssl = switch (parsed.getProtocol()) {
            case "http" -> false;
            case "https" -> true;
            default -> throw new IllegalArgumentException("not an http(s) URL: " + url);
        };
        int port = parsed.getPort() != -1 ? parsed.getPort() : ssl ? 443 : 80;
        String host = parsed.getHost();
        return new UpstreamTarget(SocketAddress.inetSocketAddress(port, host), host, port, ssl, parsed.getPath(),
                apiKey == null ? null : "Bearer " + apiKey);
    }

    /** The path on the worker for a gateway path: the same string when the worker URL has no base path. */
    public String uri(String path) {
        return basePath.isEmpty() ? path : basePath + path;
    }

    /** Options for one request to {@code path} on this worker; the caller adds headers and timeouts. */
    public RequestOptions request(HttpMethod method, String path) {
        return new RequestOptions().setMethod(method).setServer(server).setHost(host).setPort(port).setSsl(ssl)
                .setURI(uri(path));
    }
}
