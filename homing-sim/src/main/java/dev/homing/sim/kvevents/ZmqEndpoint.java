package dev.homing.sim.kvevents;

import java.util.Locale;

/**
 * A TCP endpoint of the KV event sockets as SGLang's and vLLM's configs write it, {@code tcp://HOST:PORT}: the host
 * may be {@code *} (every interface), and the port {@code *} or 0 for one the system picks (what tests use).
 *
 * @param host the host as written ({@code *}, {@code 127.0.0.1}, {@code [::1]}, a name)
 * @param port the port, or 0 for an ephemeral one
 */
public record ZmqEndpoint(String host, int port) {

    private static final String SCHEME = "tcp://";

    /**
     * Reads an endpoint.
     *
     * @throws IllegalArgumentException for anything but {@code tcp://HOST:PORT} with a port of 0..65535 or {@code *}
     */
    public static ZmqEndpoint parse(String text) {
        String trimmed = text.strip();
        if (!trimmed.toLowerCase(Locale.ROOT).startsWith(SCHEME)) {
            throw new IllegalArgumentException("a KV event endpoint is tcp://HOST:PORT (ipc and inproc are not "
                + "simulated), got '" + text + "'");
        }
        String rest = trimmed.substring(SCHEME.length());
        int colon = rest.lastIndexOf(':');
        if (colon <= 0 || colon == rest.length() - 1) {
            throw new IllegalArgumentException("a KV event endpoint needs a host and a port, got '" + text + "'");
        }
        String host = rest.substring(0, colon);
        String port = rest.substring(colon + 1);
        if (port.equals("*")) {
            return new ZmqEndpoint(host, 0);
        }
        try {
            int number = Integer.parseInt(port);
            if (number >= 0 && number <= 65_535) {
                return new ZmqEndpoint(host, number);
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("a KV event endpoint's port is 0..65535 or *, got '" + text + "'");
    }

    /** The endpoint of data-parallel rank {@code rank}: the port plus the rank, as SGLang and vLLM offset it. */
    public ZmqEndpoint forRank(int rank) {
        if (port == 0 || rank == 0) {
            return this;
        }
        if (port + rank > 65_535) {
            throw new IllegalArgumentException("the KV event port " + port + " plus rank " + rank + " exceeds 65535");
        }
        return new ZmqEndpoint(host, port + rank);
    }

    /** What a socket binds: an ephemeral port as {@code *}. */
    String bindAddress() {
        return SCHEME + host + ":" + (port == 0 ? "*" : Integer.toString(port));
    }

    /** This endpoint on the port a socket bound, read from its last endpoint ({@code tcp://ADDRESS:PORT}). */
    ZmqEndpoint bound(String lastEndpoint) {
        return new ZmqEndpoint(host, Integer.parseInt(lastEndpoint.substring(lastEndpoint.lastIndexOf(':') + 1)));
    }

    @Override
    public String toString() {
        return SCHEME + host + ":" + port;
    }
}
