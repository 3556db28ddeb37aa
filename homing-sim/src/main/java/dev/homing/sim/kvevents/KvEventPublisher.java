package dev.homing.sim.kvevents;

import dev.homing.core.kv.KvEvent;
import dev.homing.sim.model.KvEventSink;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data-parallel rank's KV event stream, as SGLang's and vLLM's ZMQ publishers send it: the engine's batches on a
 * PUB socket (frames: topic, 8-byte big-endian sequence number from 0, msgpack payload), the last
 * {@code buffer_steps} of them on a ROUTER socket for replay ({@link ZmqSender}).
 *
 * <p>The engine's driver is the sink: it tells events and the ends of batches on its one thread, which never waits
 * here. Each batch takes the next sequence number there, then goes to the sender's thread through a queue of
 * {@code max_queue_size} batches; when the queue is full the batch is dropped and counted, and its number is missing
 * from the stream, a gap its subscribers see. The fault switches ({@link #dropAll}, {@link #restart},
 * {@link #stop}, {@link #start}) are for the same thread.
 */
public final class KvEventPublisher implements KvEventSink, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(KvEventPublisher.class);

    /** One batch on its way to the socket. */
    record Outgoing(long sequence, long epoch, double timestamp, List<KvEvent> events, boolean lostOnWire) {
    }

    /** What one rank's stream has done so far. */
    public record Stats(int dpRank, long nextSequence, long queued, long droppedQueueFull, long lostByFault,
                        long sent, long replays) {
    }

    private final int dpRank;
    private final KvEventsOptions options;
    private final long seed;
    private KvEventFault fault;
    private final SplittableRandom dropDice;
    private final BlockingQueue<Outgoing> queue;
    /** The running sender, or the last one once stopped. */
    private ZmqSender sender;
    private boolean stopped;
    // The driver's: the batch being collected, the next number, the switches.
    private List<KvEvent> pending = new ArrayList<>();
    private long nextSequence;
    private long epoch;
    private boolean droppingAll;
    private long queued;
    private final AtomicLong droppedQueueFull = new AtomicLong();
    private long lostByFault;

    /**
     * Starts rank {@code dpRank}'s sender, which binds its sockets on its own thread: see {@link #bound()}.
     *
     * @param seed the fault dice's seed (the engine's)
     */
    public KvEventPublisher(KvEventsOptions options, int dpRank, long seed) {
        this.dpRank = dpRank;
        this.options = options;
        this.seed = seed;
        this.fault = options.fault();
        this.dropDice = new SplittableRandom(seed + dpRank);
        KvEventsConfig config = options.config();
        this.queue = new ArrayBlockingQueue<>(config.maxQueueSize());
        startSender(null);
    }

    private void startSender(KvEventEndpoints rebind) {
        sender = new ZmqSender(options.config(), rebind, options.format(), fault, dpRank, seed, queue);
        Thread.ofPlatform().daemon().name("kv-events-rank-" + dpRank).start(sender);
    }

    /** The endpoints the sockets bound, once they have (failed when a socket could not bind). */
    public CompletableFuture<KvEventEndpoints> bound() {
        return sender.bound();
    }

    public int dpRank() {
        return dpRank;
    }

    @Override
    public void accept(KvEvent event) {
        pending.add(event);
    }

    @Override
    public void batchEnded() {
        if (pending.isEmpty()) {
            return;
        }
        List<KvEvent> events = pending;
        pending = new ArrayList<>();
        if (stopped) {
            lostByFault++; // no publisher: nobody numbers, keeps or sends it
            return;
        }
        long sequence = nextSequence++;
        boolean lost = droppingAll || fault.hits(dropDice, KvEventFault.Kind.DROP);
        if (lost) {
            lostByFault++;
        }
        if (!queue.offer(new Outgoing(sequence, epoch, System.currentTimeMillis() / 1000.0, events, lost))) {
            long dropped = droppedQueueFull.incrementAndGet();
            if (Long.bitCount(dropped) == 1) { // the first, second, fourth...: a backlog is seen without a flood
                LOG.warn("KV events of rank {}: the publisher's queue is full, batch {} dropped ({} so far)", dpRank,
                    sequence, dropped);
            }
            return;
        }
        queued++;
    }

    /** From now on every batch is lost on its way out (still numbered and kept for replay), or none again. */
    public void dropAll(boolean drop) {
        droppingAll = drop;
    }

    /**
     * The publisher starts again, as after an engine's restart: its sequence from 0, nothing to replay from before;
     * the sockets stay bound, so subscribers hear the new stream on the same endpoints. Ends {@link #dropAll}.
     */
    public void restart() {
        nextSequence = 0;
        epoch++;
        droppingAll = false;
    }

    /**
     * The publisher dies, as when its thread or process is killed: its sockets close (subscribers hear nothing more,
     * and their replay requests go unanswered) and the batches from now on are lost. Completes once the sockets are
     * closed.
     */
    public CompletableFuture<Void> stop() {
        if (!stopped) {
            stopped = true;
            close();
        }
        return sender.closed();
    }

    /**
     * A stopped publisher comes back as a new one: its sockets bound again on the ports they had, its sequence from
     * 0, nothing to replay from before. Completes with the endpoints once bound.
     *
     * @throws IllegalStateException when it was not stopped
     */
    public CompletableFuture<KvEventEndpoints> start() {
        if (!stopped) {
            throw new IllegalStateException("the KV event publisher of rank " + dpRank + " runs already");
        }
        KvEventEndpoints before = sender.bound().join();
        queue.clear();
        restart();
        stopped = false;
        startSender(before);
        return sender.bound();
    }

    /** Whether {@link #stop} stopped it (and no {@link #start} since). */
    public boolean stopped() {
        return stopped;
    }

    /** Every fault of the stream ends: the switch and the configured dice ({@code POST /clear_faults}). */
    public void clearFaults() {
        droppingAll = false;
        fault = KvEventFault.NONE;
        sender.clearFault();
    }

    /** The stream's counts, read on the driver's thread. */
    public Stats stats() {
        return new Stats(dpRank, nextSequence, queued, droppedQueueFull.get(), lostByFault, sender.sent(),
            sender.replays());
    }

    /** Stops the sender, which closes its sockets; completes once it has. */
    public CompletableFuture<Void> closed() {
        return sender.closed();
    }

    @Override
    public void close() {
        sender.stop();
    }
}
