package dev.homing.gateway.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

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
    public static ApiServerLink start(int targetPort, boolean refusing) throws TimeoutException {
        ApiServerLink link = new ApiServerLink(targetPort);
        link.refusing = refusing;
        link.server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
        return link;
    }

    public String url() {
        return "http://127.0.0.1:" + server.actualPort();
    }

    /** Makes the API server unreachable (every connection closed at once) or reachable again. */
    public void refuse(boolean value) {
        refusing = value;
        if (value) {
            relays.forEach(this::close);
        }
    }

    /** Silences every connection that carried a watch so far; returns how many. */
    public int silenceWatches() {
        int silenced = 0;
        for (Relay relay : relays) {
            if (relay.watch().get()) {
                relay.silenced().set(true);
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
            Relay relay = new Relay(in, ar.result(), new AtomicBoolean(), new AtomicBoolean());
            relays.add(relay);
            in.handler(relay::fromClient);
            relay.out().handler(relay::fromServer);
            in.closeHandler(v -> close(relay));
            relay.out().closeHandler(v -> close(relay));
            in.resume();
        });
    }

    /** One relayed connection: whether it carried a watch, and whether it is silenced. */
    private record Relay(NetSocket in, NetSocket out, AtomicBoolean watch, AtomicBoolean silenced) {

        void fromClient(Buffer data) {
            if (!watch.get() && contains(data.getBytes(), WATCH)) {
                watch.set(true);
            }
            if (!silenced.get()) {
                out.write(data);
            }
        }

        void fromServer(Buffer data) {
            if (!silenced.get()) {
                in.write(data);
            }
        }

        void close() {
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

    private void close(Relay relay) {
        relays.remove(relay);
        relay.close();
    }

    @Override
    public void close() {
        relays.forEach(this::close);
        server.close();
        client.close();
    }
}
