package dev.homing.gateway.kvevents;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An engine's KV event publisher, for tests: an XPUB socket (so a test can wait for the subscription before it
 * publishes: a PUB drops what it sends before a subscriber joined) and, optionally, a ROUTER replay socket served on
 * a thread of its own from the batches published so far. Batches are encoded with msgpack-core in the map form
 * (current vLLM and SGLang) or the positional array form (older engines). Publishing is for the test's thread only.
 */
final class TestPublisher implements AutoCloseable {

    /** One published batch, kept for replays. */
    private record Sent(long seq, byte[] payload) {
    }

    private final ZContext context = new ZContext();
    private final ZMQ.Socket pub;
    private final String topic;
    private final boolean mapForm;
    private final List<Sent> sent = new ArrayList<>();
    private final Thread replayThread;
    private final String replayEndpoint;
    private volatile boolean running = true;
    private long nextSeq;
    private boolean dropNext;

    TestPublisher(String topic, boolean mapForm, boolean withReplay) {
        this.topic = topic;
        this.mapForm = mapForm;
        pub = context.createSocket(SocketType.XPUB);
        pub.setLinger(0);
        pub.bind("tcp://127.0.0.1:*");
        if (withReplay) {
            ZMQ.Socket router = context.createSocket(SocketType.ROUTER);
            router.setLinger(0);
            router.bind("tcp://127.0.0.1:*");
            replayEndpoint = router.getLastEndpoint();
            replayThread = Thread.ofPlatform().name("test-replay").daemon().start(() -> serveReplays(router));
        } else {
            replayEndpoint = null;
            replayThread = null;
        }
    }

    String endpoint() {
        return pub.getLastEndpoint();
    }

    String replayEndpoint() {
        return replayEndpoint;
    }

    KvEventEndpoint asEndpoint() {
        return new KvEventEndpoint(endpoint(), replayEndpoint, topic, KvEventDecoder.ArrayLayout.VLLM);
    }

    String topic() {
        return topic;
    }

    /** Waits for a subscriber's subscription message (XPUB hands it up). */
    void awaitSubscriber() {
        pub.setReceiveTimeOut(30_000);
        byte[] subscription = pub.recv(0);
        if (subscription == null || subscription[0] != 1) {
            throw new IllegalStateException("no subscriber joined");
        }
    }

    /** Continues from {@code seq}: a restart starts at 0, a drop skips some. */
    void sequence(long seq) {
        nextSeq = seq;
    }

    /** Publishes a batch storing {@code tokens} as one chain of blocks of {@code blockSize}; returns its number. */
    long store(long firstHash, Long parent, int[] tokens, int blockSize) {
        return publish(encode(new Stored(firstHash, parent, tokens, blockSize)));
    }

    /** Publishes a batch removing the given engine blocks. */
    long remove(long... hashes) {
        return publish(encode(new Removed(hashes)));
    }

    /** Publishes a batch clearing the whole cache. */
    long clear() {
        return publish(encode(new Cleared()));
    }

    /** The next batch is numbered and kept for replays but never sent: a batch lost on the way. */
    void dropNext() {
        dropNext = true;
    }

    /** Publishes raw bytes as a batch's payload. */
    long publish(byte[] payload) {
        long seq = nextSeq++;
        synchronized (sent) {
            sent.add(new Sent(seq, payload));
        }
        if (dropNext) {
            dropNext = false;
            return seq;
        }
        pub.sendMore(topic.getBytes(StandardCharsets.UTF_8));
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(payload);
        return seq;
    }

    /** Forgets the batches before {@code seq}, as a replay buffer that no longer reaches back. */
    void forgetBefore(long seq) {
        synchronized (sent) {
            sent.removeIf(s -> s.seq() < seq);
        }
    }

    private sealed interface Event permits Stored, Removed, Cleared {
    }

    private record Stored(long firstHash, Long parent, int[] tokens, int blockSize) implements Event {
    }

    private record Removed(long[] hashes) implements Event {
    }

    private record Cleared() implements Event {
    }

    private byte[] encode(Event event) {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            p.packArrayHeader(3);
            p.packDouble(System.currentTimeMillis() / 1000.0);
            p.packArrayHeader(1);
            switch (event) {
                case Stored s -> {
                    int blocks = s.tokens().length / s.blockSize();
                    head(p, "BlockStored", 6, 7);
                    key(p, "block_hashes");
                    p.packArrayHeader(blocks);
                    for (int b = 0; b < blocks; b++) {
                        p.packLong(s.firstHash() + b);
                    }
                    key(p, "parent_block_hash");
                    if (s.parent() == null) {
                        p.packNil();
                    } else {
                        p.packLong(s.parent());
                    }
                    key(p, "token_ids");
                    p.packArrayHeader(s.tokens().length);
                    for (int t : s.tokens()) {
                        p.packInt(t);
                    }
                    key(p, "block_size");
                    p.packInt(s.blockSize());
                    if (!mapForm) {
                        p.packNil(); // lora_id
                    }
                    key(p, "medium");
                    p.packString("GPU");
                }
                case Removed r -> {
                    head(p, "BlockRemoved", 3, 3);
                    key(p, "block_hashes");
                    p.packArrayHeader(r.hashes().length);
                    for (long h : r.hashes()) {
                        p.packLong(h);
                    }
                    key(p, "medium");
                    p.packString("GPU");
                }
                case Cleared c -> head(p, "AllBlocksCleared", 1, 1);
            }
            p.packInt(0);
            return p.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An event's start: a tagged map of {@code entries}, or a positional array of {@code fields} led by its type. */
    private void head(MessageBufferPacker p, String type, int entries, int fields) throws IOException {
        if (mapForm) {
            p.packMapHeader(entries);
            p.packString("type").packString(type);
        } else {
            p.packArrayHeader(fields);
            p.packString(type);
        }
    }

    /** A field's name, which only the map form carries. */
    private void key(MessageBufferPacker p, String name) throws IOException {
        if (mapForm) {
            p.packString(name);
        }
    }

    /** vLLM's replay service: every kept batch from the asked number on, then the -1 end marker. */
    private void serveReplays(ZMQ.Socket router) {
        router.setReceiveTimeOut(50);
        while (running) {
            byte[] identity = router.recv(0);
            if (identity == null) {
                continue;
            }
            List<byte[]> rest = new ArrayList<>();
            while (router.hasReceiveMore()) {
                rest.add(router.recv(0));
            }
            long from = ByteBuffer.wrap(rest.getLast()).getLong();
            List<Sent> copy;
            synchronized (sent) {
                copy = List.copyOf(sent);
            }
            for (Sent s : copy) {
                if (s.seq() >= from) {
                    router.sendMore(identity);
                    router.sendMore(new byte[0]);
                    router.sendMore(ByteBuffer.allocate(8).putLong(s.seq()).array());
                    router.send(s.payload());
                }
            }
            router.sendMore(identity);
            router.sendMore(new byte[0]);
            router.sendMore(ByteBuffer.allocate(8).putLong(-1).array());
            router.send(new byte[0]);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        if (replayThread != null) {
            replayThread.join(10_000);
        }
        context.close();
    }
}
