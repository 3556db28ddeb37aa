package dev.homing.gateway.workers;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Where this gateway's data plane listens, so that no worker is the gateway itself: each request sent to such a
 * worker would come back in as a new request and be sent again, without end. Bound to one address, only that
 * address with the listening port is the gateway; bound to every interface (0.0.0.0 or ::), the port on any address
 * of this machine is (loopback, the wildcard itself, any interface's). Gateways that are each other's workers are
 * not seen here; {@code HopLimit} ends their loop.
 *
 * <p>The port is known once the listener is bound (port 0 picks one); until then nothing counts as the gateway.
 * Thread-safe: the port is volatile and set once.
 */
public final class ThisGateway {

    private final InetAddress bound;
    private volatile int port;

    private ThisGateway(InetAddress bound, int port) {
        this.bound = bound;
        this.port = port;
    }

    /**
     * The gateway listening on {@code host} (looked up, as the listener itself does) at {@code port}; port 0 is
     * known only once {@link #bound}.
     *
     * @throws IllegalArgumentException if the host has no address
     */
    public static ThisGateway listeningOn(String host, int port) {
        try {
            return new ThisGateway(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--host " + host + " has no address", e);
        }
    }

    /** The listener is bound, at {@code actualPort}. */
    public void bound(int actualPort) {
        port = actualPort;
    }

    /**
     * Why a worker at {@code address} and {@code workerPort} must not be registered: it is this gateway's own
     * listener. Null when it is not. May read the machine's interfaces: call off the event loop.
     */
    public String problem(String url, InetAddress address, int workerPort) {
        int own = port;
        if (own == 0 || workerPort != own || !isOwnAddress(address)) {
            return null;
        }
        return url + " is this gateway's own address (" + address.getHostAddress() + ":" + own + "); a gateway"
                + " cannot be its own worker";
    }

    private boolean isOwnAddress(InetAddress address) {
        if (!bound.isAnyLocalAddress()) {
            return bound.equals(address);
        }
        if (address.isAnyLocalAddress() || address.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return false;
        }
    }
}
