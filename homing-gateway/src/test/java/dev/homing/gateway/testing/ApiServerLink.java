package dev.homing.gateway.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on a loopback ephemeral port in front of an API server, for the network faults discovery must survive:
 * the API server unreachable (connections refused as soon as they open), or the watches silently dead (open, but
 * nothing relayed any more either way, as when a connection is lost without a reset). Connections opened later are
 * relayed as usual.
 */
public final class ApiServerLink implements AutoCloseable {

    private static final byte[] WATCH = "watch=true".getBytes(StandardCharsets.US_ASCII);

    private final NetServer server;
    private final NetClient client;
    private final Set<Relay> relays = ConcurrentHashMap.newKeySet();
    private volatile boolean refusing;

    private ApiServerLink(int targetPort) {
        this.client = TestVertx.get().createNetClient();
        this.server = TestVertx.get().createNetServer().connectHandler(in -> accept(in, targetPort));
    }

    /** A relay to {@code targetPort} on loopback; {@code refusing} starts it unreachable. */
    public static ApiServerLink start(int targetPort, boolean refusing) {
        ApiServerLink link = new ApiServerLink(targetPort);
        link.refusing = refusing;
        try {
            link.server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return link;
    }

    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** Makes the API server unreachable (every connection closed at once) or reachable again. */
    public void refuse(boolean value) {
        refusing = value;
        if (value) {
            relays.forEach(Relay::close);
        }
    }

    /** Silences every connection that carried a watch so far; returns how many. */
    public int silenceWatches() {
        int silenced = 0;
        for (Relay relay : relays) {
            if (relay.watch) {
                relay.silenced = true;
                silenced++;
            }
        }
        return silenced;
    }

    private void accept(NetSocket in, int targetPort) {
        if (refusing) {
            in.close();
            return;
        }
        in.pause();
        client.connect(targetPort, "127.0.0.1").onComplete(ar -> {
            if (ar.failed()) {
                in.close();
                return;
            }
            Relay relay = new Relay(in, ar.result());
            relays.add(relay);
            in.handler(relay::fromClient);
            relay.out.handler(relay::fromServer);
            in.closeHandler(v -> relay.close());
            relay.out.closeHandler(v -> relay.close());
            in.resume();
        });
    }

    private final class Relay {
        final NetSocket in;
        final NetSocket out;
        volatile boolean watch;
        volatile boolean silenced;

        Relay(NetSocket in, NetSocket out) {
            this.in = in;
            this.out = out;
        }

        void fromClient(Buffer data) {
            if (!watch && contains(data.getBytes(), WATCH)) {
                watch = true;
            }
            if (!silenced) {
                out.write(data);
            }
        }

        void fromServer(Buffer data) {
            if (!silenced) {
                in.write(data);
            }
        }

        void close() {
            relays.remove(this);
            in.close();
            out.close();
        }
    }

    private static boolean contains(byte[] data, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= data.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (data[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public void close() {
        relays.forEach(Relay::close);
        server.close();
        client.close();
    }
}
