package dev.homing.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Free loopback ports for processes that must be told their port up front (an engine restarts on the same one). */
final class LoopbackPorts {

    private LoopbackPorts() {
    }

    /** A port the OS just handed out and took back: free unless another process grabs it in the next moment. */
    static int free() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free loopback port", e);
        }
    }
}
