package dev.homing.gateway.replica;

import dev.homing.core.replica.ModelReplica;
import dev.homing.core.replica.RemoteLoads;
import dev.homing.core.replica.ReplicaCodec;
import dev.homing.core.replica.ReplicaEvent;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerRegistry;
import dev.homing.gateway.workers.WorkerRole;
import io.nats.client.Connection;
import io.nats.client.ConnectionListener;
import io.nats.client.Dispatcher;
import io.nats.client.ErrorListener;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This gateway's link to its sibling replicas over NATS core publish/subscribe: it publishes what its models'
 * {@link ModelReplica}s and its workers' counts say, applies what the siblings publish, and takes a snapshot from a
 * warm sibling when it joins or comes back. Routing never waits for the bus: a request is placed on what the replica
 * knows at that moment.
 *
 * <pre>
 *   CONNECTING ──connected──▶ ASKING ──snapshot done, no sibling, or its time ran out──▶ IN_STEP
 *                               ▲  │                                                      │
 *                    reconnected│  └────────────────lost─────────────▶ ALONE ◀────lost────┘
 *                               └──────────────────────────────────────┘
 *   (any) ──close──▶ CLOSED
 * </pre>
 * Invariants: every change of phase is one of the diagram's, logged once and counted
 * ({@code homing_replica_sync_connected}, {@code homing_replica_sync_transitions_total}); the replica is warm
 * ({@code homing_replica_warm}) from its first IN_STEP on and stays so; events are published only while the bus is
 * reached (ASKING or IN_STEP), others are dropped and counted, since a snapshot after the reconnection makes up for
 * them; a snapshot request is answered only in IN_STEP, so a replica never hands on a half-taken snapshot. jnats
 * reconnects by itself, forever.
 *
 * <p>Threads: decisions offer events to a bounded queue (never blocking); one publisher thread batches them into
 * frames; jnats's dispatcher thread applies the siblings' frames; one scheduler thread acts on the connection's
 * events (subscribing, the phase), publishes loads and expires the siblings', and serves snapshots. Thread-safe: the
 * phase is guarded by this object's lock.
 */
public final class ReplicaSync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaSync.class);

    /** How often this replica's loads are looked at, and published when they changed. */
    static final long LOAD_CHECK_MILLIS = 20;
    /** Loads are published at least this often, changed or not: the siblings' expiry is several of these. */
    static final long LOAD_HEARTBEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** A sibling's loads count this long without a newer report (a dead sibling leaves nothing behind longer). */
    static final long LOAD_EXPIRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long the replica asks for a warm sibling before it concludes it has none. */
    static final Duration WARM_QUESTION = Duration.ofSeconds(1);
    /** How long a snapshot may take before the replica goes on with what arrived. */
    static final long SNAPSHOT_LIMIT_MILLIS = 10_000;
    /** How long the replica waits for the server to confirm its subscriptions before it goes on. */
    private static final Duration SUBSCRIBE_FLUSH = Duration.ofSeconds(2);
    /** Events per frame at most; a frame stays well under NATS's default 1 MB payload. */
    static final int FRAME_EVENTS = 512;
    private static final int QUEUE_LIMIT = 1 << 16;
    /** Siblings' events kept at most for models whose first worker has not registered here yet. */
    static final int EARLY_LIMIT = 1 << 16;

    /** Where the replica stands with its siblings; see the diagram. */
    public enum Phase {
        CONNECTING, ASKING, IN_STEP, ALONE, CLOSED
    }

    private final ReplicaSyncSettings settings;
    private final WorkerRegistry registry;
    private final ReplicaMetrics metrics;
    private final long id = ThreadLocalRandom.current().nextLong();
    private final String name = Long.toHexString(id);
    private final byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
    private final long startedNanos = System.nanoTime();
    private final Map<String, ModelReplica> models = new ConcurrentHashMap<>();
    /**
     * Siblings' events for models without a pool yet, oldest first: a replica connects and takes its snapshot while
     * its workers are still being probed. Guarded by itself, as is the put of a model into {@link #models}, so an
     * event is either kept here or applied, never lost between the two.
     */
    private final Map<String, List<ReplicaEvent>> early = new HashMap<>();
    private int earlyEvents;
    private final RemoteLoads siblingLoads = new RemoteLoads(LOAD_EXPIRY_NANOS);
    private final LinkedBlockingQueue<ReplicaEvent> outbox = new LinkedBlockingQueue<>(QUEUE_LIMIT);
    private final ScheduledExecutorService scheduler;
    private final Thread publisher;

    // Guarded by this.
    private Phase phase = Phase.CONNECTING;
    private boolean warm;
    private long snapshotAttempt;
    private volatile Connection connection;

    // Used by the scheduler thread only.
    /** The subscriptions' dispatcher, made at the first connection. */
    private Dispatcher dispatcher;
    private Map<String, Integer> lastLoads = Map.of();
    private long lastLoadsNanos;

    private ReplicaSync(ReplicaSyncSettings settings, WorkerRegistry registry, PrometheusRegistry prometheus) {
        this.settings = settings;
        this.registry = registry;
        this.metrics = new ReplicaMetrics(prometheus, siblingLoads::replicas);
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "homing-replica-sync"));
        this.publisher = daemon(this::publishLoop, "homing-replica-publisher");
    }

    /**
     * Starts connecting in the background (an unreachable bus does not stop the gateway: it routes alone and keeps
     * trying) and keeps every model pool created from now on in step.
     *
     * @throws IllegalStateException when the credentials cannot be read
     */
    public static ReplicaSync start(ReplicaSyncSettings settings, WorkerRegistry registry,
                                    PrometheusRegistry prometheus) {
        ReplicaSync sync = new ReplicaSync(settings, registry, prometheus);
        Options.Builder options = new Options.Builder().servers(settings.urls().toArray(String[]::new))
                .connectionName("homing-" + sync.name).noEcho().maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(250)).connectionTimeout(Duration.ofSeconds(2))
                .pingInterval(Duration.ofSeconds(1)).maxPingsOut(2).reconnectBufferSize(0)
                .connectionListener(sync::connectionEvent).errorListener(new QuietErrors());
        settings.credentials(options);
        registry.onPoolCreated(sync::attach);
        sync.publisher.start();
        sync.scheduler.scheduleWithFixedDelay(guarded(sync::publishLoads), LOAD_CHECK_MILLIS, LOAD_CHECK_MILLIS,
                TimeUnit.MILLISECONDS);
        sync.scheduler.scheduleWithFixedDelay(guarded(sync::expireLoads), 100, 100, TimeUnit.MILLISECONDS);
        LOG.info("replica sync: replica {} connecting to {}", sync.name, String.join(",", settings.urls()));
        try {
            Nats.connectAsynchronously(options.build(), true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the replica sync", e);
        }
        return sync;
    }

    /**
     * {@code task}, its failure logged: the scheduler's executor would keep it in a future nobody reads, and a periodic
     * task would silently stop.
     */
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("replica sync: {}", e.toString(), e);
            }
        };
    }

    /** Closes a snapshot's {@code closing}, unless it is closed already: its end and its time limit both close it. */
    private static void close(Connection conn, Dispatcher closing) {
        try {
            conn.closeDispatcher(closing);
        } catch (IllegalStateException | IllegalArgumentException e) {
            LOG.debug("replica sync: a dispatcher was closed already: {}", e.getMessage());
        }
    }

    private static Thread daemon(Runnable task, String threadName) {
        Thread thread = new Thread(task, threadName);
        thread.setDaemon(true);
        return thread;
    }

    public synchronized Phase phase() {
        return phase;
    }

    /** Whether the replica took a warm sibling's snapshot (or found it has none) at least once. */
    public synchronized boolean warm() {
        return warm;
    }

    /** What readiness waits for: warm, or the wait allowed after start is over. */
    public boolean readyToServe() {
        return warm() || System.nanoTime() - startedNanos >= settings.warmTimeout().toNanos();
    }

    /** This replica's name on the bus. */
    public String name() {
        return name;
    }

    // ---- the models ----

    /**
     * What a pool is kept in step under: its model for regular workers; the model and the role for a prefill or
     * decode pool, so that a prefill tree and a decode tree never learn each other's placements. A NUL, which no
     * model name holds, separates them.
     */
    static String key(String model, WorkerRole role) {
        return role == WorkerRole.REGULAR ? model : model + '\0' + role.label();
    }

    /** Keeps a new model pool's policy in step with the siblings' of the same model and role. */
    void attach(ModelPool pool) {
        String key = key(pool.model(), pool.role());
        ModelReplica replica = ModelReplica.attach(key, pool.policy(), settings.blockChars(), this::offer);
        List<ReplicaEvent> waiting;
        synchronized (early) {
            models.put(key, replica);
            waiting = early.remove(key);
            earlyEvents -= waiting == null ? 0 : waiting.size();
        }
        if (waiting != null) {
            waiting.forEach(replica::apply);
        }
    }

    /** A worker left: what the siblings said of it goes too. */
    public void workerRemoved(Worker worker) {
        ModelReplica model = worker.modelId() == null ? null : models.get(key(worker.modelId(), worker.role()));
        if (model != null) {
            model.workerRemoved(worker.url());
        }
    }

    private void offer(ReplicaEvent event) {
        if (!outbox.offer(event)) {
            metrics.dropped(1);
        }
    }

    // ---- the connection's phases ----

    /**
     * jnats's events, in the order its one callback thread hands them over. A connection is acted on once it serves:
     * the first one at CONNECTED; any later one at RESUBSCRIBED, once jnats has sent the subscriptions again and left
     * its reconnection mode (a connection made after failed first attempts is reported that way too, with no
     * CONNECTED). The work runs on the scheduler, which owns subscribing and snapshots, in the events' order.
     */
    private void connectionEvent(Connection conn, ConnectionListener.Events type) {
        // Known from the first event on (only this thread sets it), so that close() can end a connection still trying.
        Connection before = connection;
        connection = conn;
        if (phase() == Phase.CLOSED) {
            if (before == null && type != ConnectionListener.Events.CLOSED) {
                // Closed before jnats said a word: close() had nothing to close. Not on jnats's own thread.
                daemon(() -> closeQuietly(conn), "homing-replica-close").start();
            }
            return;
        }
        switch (type) {
            case CONNECTED, RESUBSCRIBED -> scheduler.execute(guarded(() -> joined(conn)));
            case DISCONNECTED -> scheduler.execute(guarded(() -> lost(conn)));
            case CLOSED -> moveTo(Phase.CLOSED, null);
            default -> {
                // Reconnected (acted on at RESUBSCRIBED), discovered servers, lame duck: jnats handles them.
            }
        }
    }

    private void joined(Connection conn) {
        if (conn.getStatus() != Connection.Status.CONNECTED) {
            return; // lost again before this ran: the next connection's event acts
        }
        subscribe(conn);
        reached(conn);
    }

    /**
     * Subscribes at the first connection (jnats sends the subscriptions again after a reconnection, before
     * RESUBSCRIBED), and waits until the server has them before the replica says it is connected.
     */
    private void subscribe(Connection conn) {
        if (dispatcher == null) {
            dispatcher = conn.createDispatcher();
            dispatcher.subscribe(settings.eventsSubject(), this::received);
            dispatcher.subscribe(settings.warmSubject(), this::askedIfWarm);
            dispatcher.subscribe(settings.snapshotSubject(name),
                    message -> scheduler.execute(guarded(() -> giveSnapshot(message))));
        }
        try {
            conn.flush(SUBSCRIBE_FLUSH);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException | IllegalStateException e) {
            LOG.debug("replica sync: subscriptions not confirmed by the server yet: {}", e.toString());
        }
    }

    private void reached(Connection conn) {
        long attempt;
        synchronized (this) {
            if (phase != Phase.CONNECTING && phase != Phase.ALONE) {
                return;
            }
            attempt = ++snapshotAttempt;
            moveTo(Phase.ASKING, "replica sync: bus reached" + (phase == Phase.ALONE ? " again" : "") + " ("
                    + conn.getConnectedUrl() + "); asking a warm sibling for its routing state");
            metrics.connected(true);
        }
        askForSnapshot(conn, attempt);
    }

    private void lost(Connection conn) {
        synchronized (this) {
            // Events are handed over asynchronously: a disconnection can arrive after the reconnection that ended it.
            if (phase != Phase.ASKING && phase != Phase.IN_STEP || conn.getStatus() == Connection.Status.CONNECTED) {
                return;
            }
            moveTo(Phase.ALONE, "replica sync: NATS unreachable; routing on this replica's own view until it is "
                    + "back");
            metrics.connected(false);
        }
    }

    /** Moves to {@code next}, logging {@code line} (none when null); the callers check the diagram's edge. */
    private synchronized void moveTo(Phase next, String line) {
        if (phase == Phase.CLOSED || phase == next) {
            return;
        }
        phase = next;
        if (line != null) {
            LOG.info(line);
        }
        if (next == Phase.IN_STEP && !warm) {
            warm = true;
            metrics.warm(true);
        }
    }

    private synchronized void inStep(long attempt, String line) {
        if (phase == Phase.ASKING && attempt == snapshotAttempt) {
            moveTo(Phase.IN_STEP, line);
        }
    }

    // ---- snapshots ----

    private void askForSnapshot(Connection conn, long attempt) {
        conn.requestWithTimeout(settings.warmSubject(), nameBytes, WARM_QUESTION).whenComplete((answer, failed) -> {
            if (failed != null || answer == null || answer.getData() == null || answer.getData().length == 0) {
                inStep(attempt, "replica sync: no warm sibling answered; in step from now on");
                return;
            }
            String sibling = new String(answer.getData(), StandardCharsets.UTF_8);
            takeSnapshot(conn, sibling, attempt);
        });
    }

    private void takeSnapshot(Connection conn, String sibling, long attempt) {
        String inbox = conn.createInbox();
        Dispatcher transfer = conn.createDispatcher();
        long[] events = {0};
        transfer.subscribe(inbox, message -> {
            ReplicaCodec.Frame frame = decode(message);
            if (frame == null) {
                return;
            }
            if (frame.events().isEmpty()) {
                // Closed on the scheduler, not from its own handler: closing interrupts the dispatcher's thread.
                scheduler.execute(guarded(() -> close(conn, transfer)));
                metrics.snapshot(true);
                inStep(attempt, "replica sync: took sibling " + sibling + "'s snapshot (" + events[0]
                        + " blocks); in step from now on");
                return;
            }
            events[0] += frame.events().size();
            frame.events().forEach(this::apply);
        });
        conn.publish(settings.snapshotSubject(sibling), inbox, nameBytes);
        scheduler.schedule(guarded(() -> {
            if (phase() == Phase.ASKING) {
                close(conn, transfer);
                inStep(attempt, "replica sync: sibling " + sibling + "'s snapshot did not finish in "
                        + SNAPSHOT_LIMIT_MILLIS + " ms; in step with what arrived");
            }
        }), SNAPSHOT_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void askedIfWarm(Message question) {
        if (phase() == Phase.IN_STEP && question.getReplyTo() != null) {
            connection.publish(question.getReplyTo(), nameBytes);
        }
    }

    /** Sends every model's state to the asking sibling, in frames, then an empty frame that ends it. */
    private void giveSnapshot(Message request) {
        Connection conn = connection;
        String replyTo = request.getReplyTo();
        if (replyTo == null || conn == null) {
            return;
        }
        List<ReplicaEvent.Held> held = new ArrayList<>();
        for (ModelReplica model : models.values()) {
            held.addAll(model.snapshot());
        }
        try {
            for (int from = 0; from < held.size(); from += FRAME_EVENTS) {
                byte[] frame = ReplicaCodec.encode(id, held.subList(from, Math.min(held.size(), from + FRAME_EVENTS)));
                conn.publish(replyTo, frame);
                metrics.published(Math.min(FRAME_EVENTS, held.size() - from), frame.length);
            }
            conn.publish(replyTo, ReplicaCodec.encode(id, List.of()));
            metrics.snapshot(false);
        } catch (IllegalStateException e) {
            LOG.debug("replica sync: a snapshot for {} was cut short: {}", replyTo, e.getMessage());
        }
    }

    // ---- events in ----

    private void received(Message message) {
        ReplicaCodec.Frame frame = decode(message);
        if (frame == null || frame.replica() == id) {
            return;
        }
        String sibling = Long.toHexString(frame.replica());
        for (ReplicaEvent event : frame.events()) {
            if (event instanceof ReplicaEvent.Loads loads) {
                siblingLoads.reported(sibling, loads.inFlight(), System.nanoTime()).forEach(this::elsewhere);
            } else {
                apply(event);
            }
        }
        // Counted once applied, as the metric says: a count read elsewhere never runs ahead of the routing.
        metrics.received(frame.events().size(), message.getData().length);
    }

    private void apply(ReplicaEvent event) {
        String model = switch (event) {
            case ReplicaEvent.Placed p -> p.model();
            case ReplicaEvent.Trimmed t -> t.model();
            case ReplicaEvent.Held h -> h.model();
            case ReplicaEvent.Loads l -> null;
        };
        if (model == null) {
            return;
        }
        ModelReplica replica = models.get(model);
        if (replica == null) {
            synchronized (early) {
                replica = models.get(model);
                if (replica == null) {
                    if (earlyEvents < EARLY_LIMIT) {
                        early.computeIfAbsent(model, m -> new ArrayList<>()).add(event);
                        earlyEvents++;
                    }
                    return;
                }
            }
        }
        replica.apply(event);
    }

    private ReplicaCodec.Frame decode(Message message) {
        try {
            return ReplicaCodec.decode(message.getData());
        } catch (IllegalArgumentException e) {
            LOG.debug("replica sync: a frame on {} was refused: {}", message.getSubject(), e.getMessage());
            return null;
        }
    }

    // ---- loads ----

    private void publishLoads() {
        Map<String, Integer> mine = new HashMap<>();
        for (Worker worker : registry.workers()) {
            int count = worker.inFlightCount().get();
            if (count > 0) {
                mine.put(worker.url(), count);
            }
        }
        long now = System.nanoTime();
        if (!mine.equals(lastLoads) || now - lastLoadsNanos >= LOAD_HEARTBEAT_NANOS) {
            lastLoads = mine;
            lastLoadsNanos = now;
            offer(new ReplicaEvent.Loads(mine));
        }
    }

    private void expireLoads() {
        siblingLoads.expire(System.nanoTime()).forEach(this::elsewhere);
        for (Worker worker : registry.workers()) {
            worker.inFlightCount().elsewhere(siblingLoads.sum(worker.url()));
        }
    }

    private void elsewhere(String url, int count) {
        Worker worker = registry.find(url);
        if (worker != null) {
            worker.inFlightCount().elsewhere(count);
        }
    }

    // ---- events out ----

    private void publishLoop() {
        List<ReplicaEvent> batch = new ArrayList<>(FRAME_EVENTS);
        while (!Thread.currentThread().isInterrupted()) {
            try {
                ReplicaEvent first = outbox.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                outbox.drainTo(batch, FRAME_EVENTS - 1);
                publish(batch);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                // One bad frame must not end the thread: every later event would be lost without a word.
                metrics.dropped(batch.size());
                LOG.warn("replica sync: a frame of {} events was not published: {}", batch.size(), e.toString(), e);
            } finally {
                batch.clear();
            }
        }
    }

    private void publish(List<ReplicaEvent> batch) {
        Phase now = phase();
        Connection conn = connection;
        if (conn == null || (now != Phase.ASKING && now != Phase.IN_STEP)) {
            metrics.dropped(batch.size());
            return;
        }
        byte[] frame = ReplicaCodec.encode(id, batch);
        try {
            conn.publish(settings.eventsSubject(), frame);
            metrics.published(batch.size(), frame.length);
        } catch (IllegalStateException e) {
            metrics.dropped(batch.size()); // the connection went between the check and the send
        }
    }

    @Override
    public void close() {
        moveTo(Phase.CLOSED, null);
        publisher.interrupt();
        scheduler.shutdownNow();
        Connection conn = connection;
        if (conn != null) {
            closeQuietly(conn);
        }
    }

    private static void closeQuietly(Connection conn) {
        try {
            conn.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** jnats reports every failed attempt while it reconnects; the phase's one log line says it already. */
    private static final class QuietErrors implements ErrorListener {
        @Override
        public void errorOccurred(Connection conn, String error) {
            LOG.debug("replica sync: NATS error: {}", error);
        }

        @Override
        public void exceptionOccurred(Connection conn, Exception exp) {
            LOG.debug("replica sync: NATS exception: {}", exp.toString());
        }
    }
}
