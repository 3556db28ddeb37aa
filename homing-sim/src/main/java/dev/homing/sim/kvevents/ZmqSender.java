package dev.homing.sim.kvevents;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * The thread that owns one rank's sockets (ZMQ sockets are not thread-safe: each is used by this thread alone). It
 * binds them, then waits on the queue from {@link KvEventPublisher} and sends what it holds, and between batches
 * answers replay requests without waiting on the ROUTER.
 *
 * <p>Why the queue is the only wait: a ZMQ poll over the ROUTER and a wake-up pipe was seen to sleep on with hundreds
 * of batches queued (the pipe's readiness missed), which turned a busy engine's events into silence. The queue's own
 * wait cannot miss a batch; a replay request waits at most {@link #REPLAY_POLL_MILLIS} for this thread.
 *
 * <p>The replay protocol is vLLM's: a client (a DEALER) sends an empty delimiter and the first sequence number it
 * wants as 8 big-endian bytes; the ROUTER answers with one message per kept batch from that number on, each an empty
 * delimiter, the batch's 8-byte sequence number and its payload, then an end message of an empty delimiter, the
 * number -1 (8 bytes, all ones) and an empty payload. A request of any other shape is ignored.
 *
 * <p>A batch the reorder fault holds goes out after the next batch, or after {@link #HOLD_MILLIS} when none comes.
 */
final class ZmqSender implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(ZmqSender.class);
    /** How long a held-back batch waits for a later one to overtake it. */
    static final long HOLD_MILLIS = 50;
    /** How long a replay request may wait while no batch comes. */
    static final long REPLAY_POLL_MILLIS = 5;
    /** How long a stop may wait to be noticed where there is no replay socket to serve. */
    private static final long IDLE_MILLIS = 100;
    private static final byte[] EMPTY = new byte[0];

    private final KvEventsConfig config;
    /** Where to bind again after a stop, or null: where the config says. */
    private final KvEventEndpoints rebind;
    private final KvEventEncoder encoder;
    private volatile KvEventFault fault;
    private final int dpRank;
    private final SplittableRandom reorderDice;
    private final BlockingQueue<KvEventPublisher.Outgoing> queue;
    private final byte[] topic;
    private final ReplayBuffer replayBuffer;
    private final CompletableFuture<KvEventEndpoints> bound = new CompletableFuture<>();
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean running = true;
    private volatile long sent;
    private volatile long replays;
    private long epoch;
    private KvEventPublisher.Outgoing held;
    private byte[] heldPayload;
    private long heldSinceNanos;

    /** @param rebind the endpoints an earlier sender bound, to bind the same ports again; null the first time */
    ZmqSender(KvEventsConfig config, KvEventEndpoints rebind, KvEventsFormat format, KvEventFault fault, int dpRank,
              long seed, BlockingQueue<KvEventPublisher.Outgoing> queue) {
        this.config = config;
        this.rebind = rebind;
        this.encoder = new KvEventEncoder(format);
        this.fault = fault;
        this.dpRank = dpRank;
        this.reorderDice = new SplittableRandom(~seed + dpRank);
        this.queue = queue;
        this.topic = config.topic().getBytes(StandardCharsets.UTF_8);
        this.replayBuffer = new ReplayBuffer(config.bufferSteps());
    }

    CompletableFuture<KvEventEndpoints> bound() {
        return bound;
    }

    CompletableFuture<Void> closed() {
        return closed;
    }

    long sent() {
        return sent;
    }

    long replays() {
        return replays;
    }

    /** The reorder fault ends (POST /clear_faults). */
    void clearFault() {
        fault = KvEventFault.NONE;
    }

    void stop() {
        running = false;
    }

    @Override
    public void run() {
        try (ZContext context = new ZContext(1)) {
            ZMQ.Socket pub = context.createSocket(SocketType.PUB);
            pub.setLinger(0);
            pub.setSndHWM(config.hwm());
            ZMQ.Socket router = config.replayEndpoint() == null ? null : context.createSocket(SocketType.ROUTER);
            KvEventEndpoints endpoints;
            try {
                endpoints = bind(pub, router);
            } catch (RuntimeException e) {
                bound.completeExceptionally(new IllegalStateException("rank " + dpRank + "'s KV event sockets "
                    + "could not bind: " + e.getMessage(), e));
                return;
            }
            bound.complete(endpoints);
            long waitMillis = router == null ? IDLE_MILLIS : REPLAY_POLL_MILLIS;
            while (running) {
                KvEventPublisher.Outgoing first = queue.poll(waitMillis, TimeUnit.MILLISECONDS);
                if (router != null) {
                    serveReplays(router);
                }
                if (first != null) {
                    sendQueued(pub, first);
                }
                if (held != null && System.nanoTime() - heldSinceNanos >= TimeUnit.MILLISECONDS.toNanos(HOLD_MILLIS)) {
                    sendHeld(pub);
                }
            }
            if (held != null) {
                sendHeld(pub);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("KV events of rank {}: the publisher stopped", dpRank, e);
            bound.completeExceptionally(e);
        } finally {
            closed.complete(null);
        }
    }

    private KvEventEndpoints bind(ZMQ.Socket pub, ZMQ.Socket router) {
        ZmqEndpoint events = rebind != null ? rebind.events() : config.endpoint().forRank(dpRank);
        pub.bind(events.bindAddress());
        ZmqEndpoint replay = null;
        if (router != null) {
            router.setLinger(0);
            ZmqEndpoint asked = rebind != null ? rebind.replay() : config.replayEndpoint().forRank(dpRank);
            router.bind(asked.bindAddress());
            replay = asked.bound(router.getLastEndpoint());
        }
        return new KvEventEndpoints(dpRank, events.bound(pub.getLastEndpoint()), replay);
    }

    /** Sends {@code first} and whatever else the queue holds now. */
    private void sendQueued(ZMQ.Socket pub, KvEventPublisher.Outgoing first) {
        for (KvEventPublisher.Outgoing next = first; next != null; next = queue.poll()) {
            if (next.epoch() != epoch) {
                // The publisher restarted: nothing of the old stream is replayed or held back any longer.
                epoch = next.epoch();
                replayBuffer.clear();
                held = null;
                heldPayload = null;
            }
            byte[] payload = encoder.encode(next.timestamp(), next.events(), dpRank);
            replayBuffer.add(next.sequence(), payload);
            if (next.lostOnWire()) {
                continue;
            }
            if (held == null && fault.hits(reorderDice, KvEventFault.Kind.REORDER)) {
                held = next;
                heldPayload = payload;
                heldSinceNanos = System.nanoTime();
                continue;
            }
            send(pub, next.sequence(), payload);
            if (held != null) {
                sendHeld(pub);
            }
        }
    }

    private void sendHeld(ZMQ.Socket pub) {
        send(pub, held.sequence(), heldPayload);
        held = null;
        heldPayload = null;
    }

    private void send(ZMQ.Socket pub, long sequence, byte[] payload) {
        pub.sendMore(topic);
        pub.sendMore(sequenceBytes(sequence));
        pub.send(payload);
        sent++;
    }

    private void serveReplays(ZMQ.Socket router) {
        byte[] identity;
        while ((identity = router.recv(ZMQ.DONTWAIT)) != null) {
            List<byte[]> frames = new ArrayList<>();
            while (router.hasReceiveMore()) {
                frames.add(router.recv());
            }
            if (frames.size() != 2 || frames.get(0).length != 0 || frames.get(1).length != Long.BYTES) {
                LOG.warn("KV events of rank {}: a replay request of {} frames after the identity ignored", dpRank,
                    frames.size());
                continue;
            }
            replays++;
            long start = ByteBuffer.wrap(frames.get(1)).getLong();
            for (ReplayBuffer.Sent batch : replayBuffer.from(start)) {
                reply(router, identity, sequenceBytes(batch.sequence()), batch.payload());
            }
            reply(router, identity, sequenceBytes(-1), EMPTY);
        }
    }

    private static void reply(ZMQ.Socket router, byte[] identity, byte[] sequence, byte[] payload) {
        router.sendMore(identity);
        router.sendMore(EMPTY);
        router.sendMore(sequence);
        router.send(payload);
    }

    static byte[] sequenceBytes(long sequence) {
        return ByteBuffer.allocate(Long.BYTES).putLong(sequence).array();
    }
}
