package dev.homing.gateway.workers;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;

import java.net.InetAddress;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;

/**
 * Where a worker's requests go, worked out once from its URL: the server address, host, port, TLS flag and base
 * path that {@code RequestOptions.setAbsoluteURI} would otherwise re-parse from a concatenated string on every
 * request. Immutable.
 *
 * <p>The server address is an IP address once the worker's host has been resolved ({@link #at}): every connection
 * then goes to the address that was resolved (and, for {@code POST /workers}, checked against the allow list), never
 * to a new answer for the name, so a DNS record that changes afterwards (rebinding) cannot send the gateway
 * elsewhere. The name stays the Host header (and would stay the TLS server name).
 *
 * @param server        the socket address the HTTP client pools connections by: the host's IP address, or the URL's
 *                      host name until {@link #at} fixes the address
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

    /** This target with its connections going to {@code address} (an IP address, so no lookup happens). */
    public UpstreamTarget at(InetAddress address) {
        return new UpstreamTarget(SocketAddress.inetSocketAddress(port, address.getHostAddress()), host, port, ssl,
                basePath, authorization);
    }

    /** Whether the server is still a host name, which a connection would look up afresh: no address fixed yet. */
    public boolean needsAddress() {
        return !isAddressLiteral(server.host());
    }

    /** An IPv4 or IPv6 literal (with or without brackets): what a connection uses without asking DNS. */
    private static boolean isAddressLiteral(String host) {
        return host.indexOf(':') >= 0 || !host.isEmpty() && host.chars().allMatch(c -> c == '.' || c >= '0' && c <= '9');
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
