package dev.homing.gateway.kvevents;

import dev.homing.core.kv.KvEventLiveness;
import dev.homing.core.kv.KvEventLiveness.State;
import dev.homing.core.kv.TokenAgreement;
import dev.homing.core.kv.TokenBlocks;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Every worker's KV event subscription, on one thread of its own: it polls all the workers' sockets with one ZMQ
 * poller (each socket is used by this thread alone, as ZMQ requires), applies their batches to each model's
 * {@link ExactViews} and ticks their liveness. Subscriptions come and go through a queue of commands the thread takes
 * between polls, so any thread may call {@link #subscribe} and {@link #unsubscribe}.
 *
 * <p>A worker is keyed by its URL (its id in the routing policies): subscribing one to another endpoint replaces its
 * subscription in one step, so it never has two and is never missing from {@link #statuses} meanwhile (its old status
 * shows until the new stream takes its place); subscribing it again to the same endpoint keeps the stream it has. A
 * worker whose engine says it publishes no events has a status and no stream. {@link #close} stops the thread, which
 * closes every socket and terminates the ZMQ context.
 */
public final class KvEventSubscribers implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KvEventSubscribers.class);

    /** How long a poll waits at most: the tick of silence and replay deadlines, and the command queue's delay. */
    private static final long POLL_MS = 20;
    /**
     * A replay unanswered for this long is given up. A local engine answers in milliseconds; the margin lets a
     * stalled handshake be dropped ({@link WorkerStream#HANDSHAKE_MS}) and made afresh before the gap counts as lost.
     */
    public static final Duration REPLAY_TIMEOUT = Duration.ofSeconds(5);
    /** The reason shown for a worker whose {@code /get_server_info} reports no {@code kv_events_config}. */
    public static final String ENGINE_REPORTS_NO_KV_EVENTS = "engine_reports_no_kv_events";

    private final TokenBlocks blocks;
    private final long maxEngineBlocks;
    private final long silenceNanos;
    private final long replayTimeoutNanos;
    private final KvEventMetrics metrics;
    private final ZContext context = new ZContext();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Map<String, ExactViews> viewsByModel = new ConcurrentHashMap<>();
    /** By worker URL; written on the thread only, read anywhere. */
    private final Map<String, WorkerStream> streams = new ConcurrentHashMap<>();
    /** By worker URL, the workers with no stream because their engine publishes no events; as {@link #streams}. */
    private final Map<String, WorkerStream.Status> withoutEvents = new ConcurrentHashMap<>();
    /** By model, its prompt token checks over all its workers; only this class's thread adds to it. */
    private final Map<String, TokenAgreement> tokensByModel = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param blockTokens     tokens per block of the gateway's own hashes
     * @param maxEngineBlocks each model's index cap
     * @param silence         how long an expected stream may stay silent
     * @param replayTimeout   how long a replay may stay unanswered ({@link #REPLAY_TIMEOUT} in production)
     */
    public KvEventSubscribers(int blockTokens, long maxEngineBlocks, Duration silence, Duration replayTimeout,
                              PrometheusRegistry registry) {
        this.blocks = new TokenBlocks(blockTokens);
        this.maxEngineBlocks = maxEngineBlocks;
        this.silenceNanos = silence.toNanos();
        this.replayTimeoutNanos = replayTimeout.toNanos();
        this.metrics = new KvEventMetrics(registry, this::statuses,
                () -> viewsByModel.values().stream().map(ExactViews::stats).toList());
        this.thread = Thread.ofPlatform().name("homing-kv-events").daemon().unstarted(this::run);
        thread.start();
    }

    /** Tokens per block of the gateway's own hashes. */
    public int blockTokens() {
        return blocks.blockTokens();
    }

    /** The model's exact view, created empty on first use. */
    public ExactViews views(String model) {
        return viewsByModel.computeIfAbsent(model, m -> new ExactViews(blocks, maxEngineBlocks));
    }

    /**
     * Subscribes to {@code worker}'s events, applied to {@code model}'s view: replaces a subscription it has
     * elsewhere, keeps one it has at the same endpoint.
     */
    public void subscribe(String worker, String model, KvEventEndpoint endpoint) {
        subscribe(worker, model, endpoint, () -> true);
    }

    /** As {@link #subscribe(String, String, KvEventEndpoint)}, unless {@code wanted} says no by the time it runs. */
    void subscribe(String worker, String model, KvEventEndpoint endpoint, BooleanSupplier wanted) {
        ExactViews views = views(model);
        commands.add(() -> {
            if (!wanted.getAsBoolean()) {
                return;
            }
            WorkerStream old = streams.get(worker);
            if (old != null && old.model().equals(model) && old.endpoint().equals(endpoint)) {
                return; // a worker active again: its stream goes on, and ZMQ reconnects it by itself
            }
            WorkerStream stream = new WorkerStream(worker, model, endpoint, views,
                    tokensByModel.computeIfAbsent(model, m -> new TokenAgreement()), metrics, silenceNanos,
                    replayTimeoutNanos, context);
            streams.put(worker, stream); // in the old one's place: the worker is never missing from statuses()
            withoutEvents.remove(worker);
            if (old != null) {
                old.replaced();
            }
        });
    }

    /**
     * {@code worker}'s engine says it publishes no KV events: it is subscribed to nothing (a subscription it has
     * ends) and reported NONE with {@code reason}, routed on the tree. As {@link #subscribe}, unless {@code wanted}
     * says no by the time it runs.
     */
    void withoutEvents(String worker, String model, String reason, BooleanSupplier wanted) {
        commands.add(() -> {
            if (!wanted.getAsBoolean()) {
                return;
            }
            withoutEvents.put(worker, new WorkerStream.Status(worker, model, null, null, State.NONE, reason, -1,
                    null));
            WorkerStream old = streams.remove(worker);
            if (old != null) {
                old.close();
            }
        });
    }

    /** Stops {@code worker}'s subscription and forgets its view. */
    public void unsubscribe(String worker) {
        commands.add(() -> {
            withoutEvents.remove(worker);
            WorkerStream stream = streams.remove(worker);
            if (stream != null) {
                stream.close();
                LOG.info("worker {}: KV event subscription closed", worker);
            }
        });
    }

    /**
     * A request sent to {@code worker} at {@code sentNanos} was prefilled (its first token came at {@code nowNanos})
     * with at least one block its engine did not hold: the engine must publish within the silence limit, or its view
     * counts as gone. Any thread.
     */
    public void expectEvents(String worker, long sentNanos, long nowNanos) {
        WorkerStream stream = streams.get(worker);
        if (stream != null) {
            stream.expectEvents(sentNanos, nowNanos);
        }
    }

    /**
     * A prompt the gateway counted {@code gatewayTokens} tokens was answered by {@code worker}'s engine with a usage
     * of {@code engineTokens}: where most such counts differ, the worker is routed on the tree (reason
     * {@code tokens_differ}) until most agree again. Any thread.
     */
    public void tokensChecked(String worker, long gatewayTokens, long engineTokens) {
        WorkerStream stream = streams.get(worker);
        if (stream != null) {
            stream.tokensChecked(gatewayTokens, engineTokens);
        }
    }

    /**
     * {@code worker}'s engine answered, without usage, a prompt whose own block {@code ownHash} no engine held at its
     * look-up: its events must show it soon, unless it tokenizes otherwise ({@link WorkerStream#blockStored}). Any
     * thread.
     */
    public void blockStored(String worker, long ownHash) {
        WorkerStream stream = streams.get(worker);
        if (stream != null) {
            stream.blockStored(ownHash, System.nanoTime());
        }
    }

    /**
     * Whether some worker of {@code model} is set aside because its engine counts prompts' tokens otherwise: its
     * prompts are still counted now and then, so that it can come back when the counts agree again.
     */
    public boolean tokensDiffer(String model) {
        for (WorkerStream stream : streams.values()) {
            if (stream.model().equals(model) && stream.tokensDiffer()) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code model}'s workers together have had too few prompts checked for a verdict on its tokens. */
    public boolean tokensUnsettled(String model) {
        TokenAgreement tokens = tokensByModel.get(model);
        return tokens != null && !tokens.settled();
    }

    /** A request's exact-view look-up took {@code nanos}. */
    void lookedUp(long nanos) {
        metrics.lookedUp(nanos);
    }

    /** Each subscribed worker's state, for the admin route and the metrics. */
    public Collection<WorkerStream.Status> statuses() {
        List<WorkerStream.Status> statuses = new ArrayList<>();
        streams.values().forEach(stream -> statuses.add(stream.status()));
        // A worker moving between the two maps is in both for a moment: its stream's status counts.
        withoutEvents.values().stream().filter(s -> !streams.containsKey(s.worker())).forEach(statuses::add);
        return statuses;
    }

    /** Each subscribed worker's KV event state by its URL, for the status page. */
    public Map<String, KvEventLiveness.State> statesByWorker() {
        Map<String, KvEventLiveness.State> states = new HashMap<>();
        statuses().forEach(status -> states.put(status.worker(), status.state()));
        return states;
    }

    @Override
    public void close() {
        running = false;
        try {
            if (!thread.join(Duration.ofSeconds(10))) {
                LOG.warn("the KV event thread did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        ZMQ.Poller poller = null;
        List<ZMQ.Socket> polled = List.of();
        Map<ZMQ.Socket, WorkerStream> owners = new HashMap<>();
        try {
            while (running) {
                Runnable command;
                while ((command = commands.poll()) != null) {
                    command.run();
                }
                List<ZMQ.Socket> sockets = new ArrayList<>();
                owners.clear();
                for (WorkerStream stream : streams.values()) {
                    for (ZMQ.Socket socket : stream.sockets()) {
                        sockets.add(socket);
                        owners.put(socket, stream);
                    }
                }
                if (!sockets.equals(polled)) {
                    if (poller != null) {
                        poller.close();
                    }
                    poller = context.createPoller(sockets.size());
                    for (ZMQ.Socket socket : sockets) {
                        poller.register(socket, ZMQ.Poller.POLLIN);
                    }
                    polled = sockets;
                }
                if (sockets.isEmpty()) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS));
                } else {
                    poller.poll(POLL_MS);
                    long now = System.nanoTime();
                    for (int s = 0; s < sockets.size(); s++) {
                        int i = s;
                        if (poller.pollin(i)) {
                            WorkerStream stream = owners.get(sockets.get(i));
                            if (stream.owns(sockets.get(i))) {
                                guarded(stream, () -> stream.readable(sockets.get(i), now));
                            }
                        }
                    }
                }
                long now = System.nanoTime();
                for (WorkerStream stream : streams.values()) {
                    guarded(stream, () -> stream.tick(now));
                }
            }
        } catch (RuntimeException e) {
            LOG.error("the KV event thread failed; every worker's exact view is set aside", e);
        } finally {
            for (WorkerStream stream : streams.values()) {
                stream.close();
            }
            streams.clear();
            withoutEvents.clear();
            if (poller != null) {
                poller.close();
            }
            context.close();
        }
    }

    /** A stream that fails (a bug) is dropped alone, its view with it, rather than every worker's. */
    private void guarded(WorkerStream stream, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            LOG.error("worker {}: its KV event stream failed and is closed; routing on the prefix tree for it",
                    stream.worker(), e);
            streams.remove(stream.worker(), stream);
            stream.close();
        }
    }
}
