package dev.homing.gateway.kvevents;

import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvEventLiveness;
import dev.homing.core.kv.KvEventLiveness.State;
import dev.homing.core.kv.KvEventLiveness.Verdict;
import dev.homing.core.kv.TokenAgreement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One worker's KV event stream: its SUB socket, its replay (a DEALER to the engine's ROUTER), its
 * {@link KvEventLiveness}, and the batches it applies to its model's {@link ExactViews}.
 *
 * <p>Replay, as vLLM's publisher serves it: the client sends an empty delimiter frame and the first sequence number
 * it misses (8 bytes, big-endian); the engine answers, one message per batch still in its buffer from that number
 * on, the delimiter, the sequence number and the payload (newer engines put the topic before the sequence number),
 * and ends with a message whose sequence number is -1 and whose payload is empty. Live batches that come meanwhile
 * wait in a backlog of at most {@link #MAX_BACKLOG}, so the missing ones are applied first. At the subscription's
 * first connection the same replay, asked from 0, catches the view up on all the engine still buffers from before
 * the gateway subscribed ({@link KvEventLiveness#startCatchUp()}).
 *
 * <p>Batches lost for good (no replay socket, a replay that no longer reaches back, one that never ends, a backlog
 * overflow, an undecodable batch) make the view wrong in unknown ways: it is cleared and rebuilt from the next
 * batch. A view so joined late misses only stores (every removal of a block it records comes after that block's
 * store), so it under-states what the engine holds and never over-states it: exact again at once.
 *
 * <p>The SUB socket's monitor reports its connection: up once the ZMQ handshake with the engine's publisher is done,
 * down when the publisher goes (its process ended, its socket closed). The liveness rule takes both, so a publisher
 * that dies turns the worker to the tree at once rather than after a silence, and a view is exact (and empty) as
 * soon as its subscription is in place, before the engine has anything to publish.
 *
 * <p>Confined to the subscriber thread (ZMQ sockets are not thread-safe), except {@link #expectEvents} and
 * {@link #status}, which any thread may call.
 */
final class WorkerStream {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerStream.class);

    /** Live batches held while a replay runs: an engine publishes one a scheduler step, so seconds of them. */
    static final int MAX_BACKLOG = 4096;
    /** Replayed batches the replay socket may queue unread: past the engines' default buffer of 10,000 batches. */
    static final int REPLAY_QUEUE = 16_384;
    /**
     * A catch-up answer quiet this long after it brought batches has had the rest dropped, its end marker with it
     * (an engine sends its buffer in one loop): asked again at once rather than after the replay timeout. A pause
     * mistaken for it costs one more request.
     */
    static final long CATCH_UP_STALL_NANOS = 250_000_000L;
    /**
     * A ZMQ handshake unfinished after this long is dropped and the connection made afresh. Without it a handshake
     * that stalls (the peer busy, or not bound yet when the connection began) leaves the socket connected but
     * silent for ZMQ's default of 30 s: the worker would look as if its engine published nothing. A local engine
     * completes it in milliseconds.
     */
    static final int HANDSHAKE_MS = 2_000;
    /** Block checks a worker keeps waiting at most: a second's worth of requests is plenty for a verdict. */
    static final int MAX_BLOCK_CHECKS = 64;
    private static final long END_OF_REPLAY = -1;
    /** A subscription not connected after this long is worth a WARN: the engine's events may be off or unreachable. */
    static final long CONNECT_WARN_NANOS = 10_000_000_000L;
    /** Names each stream's monitor socket (an in-process address) apart. */
    private static final AtomicLong MONITORS = new AtomicLong();

    /** What the admin route and the metrics show of a worker; immutable. */
    record Status(String worker, String model, String endpoint, String replay, State state, String reason,
                  long lastSequence, TokenAgreement.Summary tokenChecks) {
    }

    private record Pending(long seq, byte[] payload) {
    }

    private final String worker;
    private final String model;
    private final KvEventEndpoint endpoint;
    private final ExactViews views;
    private final KvEventDecoder decoder;
    private final KvEventMetrics metrics;
    private final KvEventLiveness liveness;
    /** Whether the engine's usage counts prompts' tokens as the gateway did (any thread records, the tick reads). */
    private final TokenAgreement tokens = new TokenAgreement();
    /**
     * The same over every worker of the model, whose verdict stands for this worker's until it has one of its own:
     * the gateway tokenizes a model's prompts one way, so what its other engines say is likely true here too, and a
     * worker whose look-ups match nothing may get no request to be checked on (the others look better).
     */
    private final TokenAgreement modelTokens;
    private final ZContext context;
    private final ZMQ.Socket subscriber;
    /** The subscriber's connection events (handshake done, disconnected), as ZMQ's socket monitor sends them. */
    private final ZMQ.Socket monitor;
    private final long replayTimeoutNanos;
    /** The expectations raised since the last tick (any thread), folded into one; null when none was. */
    private final AtomicReference<Expectation> pendingExpectation = new AtomicReference<>();

    private ZMQ.Socket replaySocket;
    /** The live batches waiting while a replay runs, the held one first; empty when none runs. */
    private final ArrayDeque<Pending> backlog = new ArrayDeque<>();
    private long replayDeadline;
    /** Batches the running catch-up applied, and of them its latest answer; with where it began, for its log line. */
    private long replayApplied;
    private long answerApplied;
    private long lastReplayedNanos;
    private long catchUpFrom = -1;
    private long lastSequence = -1;
    private final long subscribedNanos = System.nanoTime();
    /** Until the first handshake, or the WARN that none came. */
    private boolean connectWarnPending = true;
    private volatile Status status;
    /**
     * Block checks waiting for their engine's events ({@link #blockStored}), at most {@link #MAX_BLOCK_CHECKS}; the
     * count is the queue's size, kept apart because a concurrent queue's is not constant time.
     */
    private final ConcurrentLinkedQueue<BlockCheck> blockChecks = new ConcurrentLinkedQueue<>();
    private final AtomicInteger blockChecksWaiting = new AtomicInteger();
    /** How long an engine has to publish a prompt's blocks: the silence limit. */
    private final long silenceNanos;
    /**
     * Counts the times the view was cleared (a clear event, a restart, a resync): a check across one proves nothing.
     * Written on the subscriber thread only, read by any.
     */
    private volatile long viewEpoch;

    /** @param replayTimeoutNanos how long a replay may stay unanswered before it is given up */
    WorkerStream(String worker, String model, KvEventEndpoint endpoint, ExactViews views, TokenAgreement modelTokens,
                 KvEventMetrics metrics, long silenceNanos, long replayTimeoutNanos, ZContext context) {
        this.worker = worker;
        this.model = model;
        this.endpoint = endpoint;
        this.views = views;
        this.modelTokens = modelTokens;
        this.decoder = new KvEventDecoder(endpoint.layout());
        this.metrics = metrics;
        this.liveness = new KvEventLiveness(silenceNanos, endpoint.replay() != null);
        this.silenceNanos = silenceNanos;
        this.context = context;
        this.replayTimeoutNanos = replayTimeoutNanos;
        this.subscriber = context.createSocket(SocketType.SUB);
        subscriber.setLinger(0);
        subscriber.setHandshakeIvl(HANDSHAKE_MS);
        String monitorAddress = "inproc://kv-events-monitor-" + MONITORS.incrementAndGet();
        subscriber.monitor(monitorAddress, ZMQ.EVENT_HANDSHAKE_PROTOCOL | ZMQ.EVENT_DISCONNECTED);
        this.monitor = context.createSocket(SocketType.PAIR);
        monitor.setLinger(0);
        monitor.connect(monitorAddress);
        subscriber.connect(endpoint.endpoint());
        subscriber.subscribe(endpoint.topic().getBytes(StandardCharsets.UTF_8));
        this.status = snapshot();
        metrics.added(worker);
        LOG.info("worker {}: subscribing to KV events at {}{}", worker, endpoint.endpoint(),
                endpoint.replay() == null ? " (no replay socket)" : ", replay at " + endpoint.replay());
    }

    String worker() {
        return worker;
    }

    String model() {
        return model;
    }

    KvEventEndpoint endpoint() {
        return endpoint;
    }

    Status status() {
        return status;
    }

    /**
     * Any thread: a request sent here at {@code sentNanos} was prefilled (its first token came at {@code nowNanos})
     * with blocks the engine did not hold.
     */
    void expectEvents(long sentNanos, long nowNanos) {
        pendingExpectation.accumulateAndGet(new Expectation(sentNanos, nowNanos), Expectation::and);
    }

    /**
     * Expectations raised between two ticks, as one: the latest send (a batch heard after it meets them all) and the
     * earliest first token (the silence counts from the oldest). A tick is 20 ms, so the fold costs little precision.
     */
    private record Expectation(long sentNanos, long firstTokenNanos) {
        static Expectation and(Expectation pending, Expectation raised) {
            return pending == null ? raised : new Expectation(Math.max(pending.sentNanos, raised.sentNanos),
                    Math.min(pending.firstTokenNanos, raised.firstTokenNanos));
        }
    }

    /**
     * Any thread: a prompt the gateway counted {@code gatewayTokens} tokens was answered by this engine with a usage
     * of {@code engineTokens} prompt tokens. The verdict reaches the worker's state at the next tick.
     */
    void tokensChecked(long gatewayTokens, long engineTokens) {
        modelTokens.check(gatewayTokens, engineTokens);
        metrics.tokensChecked(worker, tokens.check(gatewayTokens, engineTokens));
    }

    /** A block of the gateway's tokens the engine should show it holds from {@code dueNanos} on. */
    private record BlockCheck(long ownHash, long dueNanos, long epoch) {
    }

    /**
     * Any thread: this engine answered, without usage, a prompt whose block {@code ownHash} of the gateway's tokens
     * no engine held when it was looked up, and it has prefilled that block by now. Checked once the silence limit
     * has passed, by whether the view then shows it (an engine that tokenizes otherwise stored other blocks);
     * dropped when more are waiting than {@link #MAX_BLOCK_CHECKS}.
     */
    void blockStored(long ownHash, long nowNanos) {
        if (blockChecksWaiting.incrementAndGet() > MAX_BLOCK_CHECKS) {
            blockChecksWaiting.decrementAndGet();
            return;
        }
        blockChecks.add(new BlockCheck(ownHash, nowNanos + silenceNanos, viewEpoch));
    }

    /**
     * The block checks that are due: each counts where the view is exact and was not cleared since (else it says
     * nothing of the tokens), towards the same verdict as the usage's counts.
     */
    private void checkBlocks(long nowNanos) {
        BlockCheck check;
        while ((check = blockChecks.peek()) != null && nowNanos - check.dueNanos() >= 0) {
            blockChecks.poll();
            blockChecksWaiting.decrementAndGet();
            State state = liveness.state();
            boolean viewable = check.epoch() == viewEpoch
                    && (state == State.EXACT || liveness.reason() == KvEventLiveness.Reason.TOKENS_DIFFER);
            if (viewable) {
                boolean stored = views.holds(worker, check.ownHash());
                modelTokens.checkStored(stored);
                metrics.tokensChecked(worker, tokens.checkStored(stored));
            }
        }
    }

    /**
     * Whether the engine counts prompts' tokens otherwise than the gateway now, by {@link TokenAgreement}'s rule: by
     * its own checks, or by the model's until it has enough of its own.
     */
    boolean tokensDiffer() {
        return tokens.settled() ? tokens.differ() : modelTokens.differ();
    }

    /** The sockets to poll for input now. */
    List<ZMQ.Socket> sockets() {
        List<ZMQ.Socket> sockets = new ArrayList<>(3);
        sockets.add(subscriber);
        sockets.add(monitor);
        if (replaySocket != null) {
            sockets.add(replaySocket);
        }
        return sockets;
    }

    boolean owns(ZMQ.Socket socket) {
        return socket == subscriber || socket == monitor || socket == replaySocket;
    }

    /** Reads whatever {@code socket} has, without blocking. */
    void readable(ZMQ.Socket socket, long nowNanos) {
        if (socket == monitor) {
            connectionEvents(nowNanos);
        } else {
            drain(socket, nowNanos);
        }
        publish();
    }

    private void drain(ZMQ.Socket socket, long nowNanos) {
        List<byte[]> frames;
        while ((frames = receive(socket)) != null) {
            if (socket == subscriber) {
                live(frames, nowNanos);
            } else {
                replayed(frames, nowNanos);
            }
            if (socket != subscriber && socket != replaySocket) {
                break; // the replay ended and its socket was closed
            }
        }
    }

    /**
     * The clock moved: expectations, silence and an overdue replay. What the SUB socket holds already is read first:
     * a batch that came while this thread applied other workers' batches is late work here, not the engine's
     * silence (on a starved machine that difference flipped healthy workers to the tree and back).
     */
    void tick(long nowNanos) {
        drain(subscriber, nowNanos);
        Expectation expectation = pendingExpectation.getAndSet(null);
        if (expectation != null) {
            liveness.expectEvents(expectation.sentNanos(), expectation.firstTokenNanos());
        }
        liveness.onTick(nowNanos);
        checkBlocks(nowNanos);
        liveness.onTokensDiffer(tokensDiffer());
        if (connectWarnPending && nowNanos - subscribedNanos >= CONNECT_WARN_NANOS) {
            connectWarnPending = false;
            LOG.warn("worker {}: no connection to its KV event publisher at {} after {} s (events off in the engine, "
                    + "a wrong endpoint or a blocked port?): routing on the prefix tree for it", worker,
                    endpoint.endpoint(), CONNECT_WARN_NANOS / 1_000_000_000L);
        }
        boolean stalled = liveness.catchingUp() && answerApplied > 0
                && nowNanos - lastReplayedNanos >= CATCH_UP_STALL_NANOS;
        if (replayRunning() && (stalled || nowNanos - replayDeadline >= 0)) {
            LOG.debug("worker {}: the replay from {} did not end in time", worker, liveness.expected());
            answerOver(replayApplied > 0, nowNanos); // an engine that answered before: the rest was dropped
        }
        publish();
    }

    /** The worker's subscription ends: its sockets, its view and its metric series go. */
    void close() {
        replaced();
        metrics.removed(worker);
    }

    /**
     * Another stream of the same worker took this one's place: its sockets and its view go (the new source rebuilds
     * the view from its first batch), the worker's metric series stay with the new stream.
     */
    void replaced() {
        subscriber.monitor(null, 0);
        context.destroySocket(monitor);
        context.destroySocket(subscriber);
        if (replaySocket != null) {
            context.destroySocket(replaySocket);
        }
        views.remove(worker);
    }

    private void connectionEvents(long nowNanos) {
        ZEvent event;
        while ((event = ZEvent.recv(monitor, ZMQ.DONTWAIT)) != null) {
            switch (event.getEvent()) {
                case HANDSHAKE_PROTOCOL -> {
                    connectWarnPending = false;
                    liveness.onConnected();
                    if (liveness.startCatchUp()) {
                        replayApplied = 0;
                        catchUpFrom = -1;
                        startReplay(nowNanos);
                    }
                }
                case DISCONNECTED -> liveness.onDisconnected();
                default -> {
                    // not asked for
                }
            }
        }
    }

    private void live(List<byte[]> frames, long nowNanos) {
        if (frames.size() != 3 || frames.get(1).length != Long.BYTES) {
            metrics.batch(worker, "malformed");
            warnOnce("a message of " + frames.size() + " frames, not topic, sequence number and payload");
            return;
        }
        long seq = ByteBuffer.wrap(frames.get(1)).getLong();
        if (seq < 0) {
            metrics.batch(worker, "malformed");
            return;
        }
        lastSequence = seq;
        Pending batch = new Pending(seq, frames.get(2));
        if (replayRunning() && backlog.size() >= MAX_BACKLOG) {
            LOG.debug("worker {}: more than {} batches waiting for a replay", worker, MAX_BACKLOG);
            endReplay(nowNanos); // gives the replay up: what it had not brought is lost
        }
        if (replayRunning()) {
            // A replay runs (perhaps a new one, for a gap among the batches that waited).
            backlog.add(batch);
            metrics.batch(worker, "held");
            return;
        }
        onLive(batch, nowNanos);
    }

    /** A live batch with no replay running. */
    private void onLive(Pending batch, long nowNanos) {
        Verdict verdict = liveness.onLive(batch.seq(), nowNanos);
        switch (verdict) {
            case APPLY -> apply(batch, nowNanos);
            case SKIP -> metrics.batch(worker, "skipped");
            case CLEAR_THEN_APPLY -> {
                LOG.debug("worker {}: its publisher restarted at {}", worker, batch.seq());
                views.clear(worker);
                viewEpoch++;
                apply(batch, nowNanos);
            }
            case HOLD_FOR_REPLAY -> {
                metrics.batch(worker, "held");
                backlog.addFirst(batch); // the held batch goes first, before any later ones still waiting
                if (!startReplay(nowNanos)) {
                    endReplay(nowNanos);
                }
            }
        }
    }

    private boolean startReplay(long nowNanos) {
        if (endpoint.replay() == null) {
            return false;
        }
        replaySocket = context.createSocket(SocketType.DEALER);
        replaySocket.setLinger(0);
        // An engine's ROUTER drops what its queue to this socket cannot take, and a catch-up brings its whole buffer
        // at once: a deep queue here keeps that one draining while this thread applies the first batches (what it
        // still drops, the catch-up asks for again).
        replaySocket.setRcvHWM(REPLAY_QUEUE);
        replaySocket.setHandshakeIvl(HANDSHAKE_MS);
        replaySocket.connect(endpoint.replay());
        replaySocket.sendMore(new byte[0]);
        replaySocket.send(ByteBuffer.allocate(Long.BYTES).putLong(liveness.expected()).array());
        replayDeadline = nowNanos + replayTimeoutNanos;
        answerApplied = 0;
        return true;
    }

    /** Whether a replay runs: for a gap (its held batch first in the backlog) or a catch-up (perhaps none held). */
    private boolean replayRunning() {
        return !backlog.isEmpty() || liveness.catchingUp();
    }

    private void replayed(List<byte[]> frames, long nowNanos) {
        if (!replayRunning()) {
            return; // an answer to a replay given up
        }
        int first = !frames.isEmpty() && frames.getFirst().length == 0 ? 1 : 0;
        List<byte[]> body = frames.subList(first, frames.size());
        // [seq, payload], or [topic, seq, payload] from newer engines.
        if (body.size() < 2 || body.get(body.size() - 2).length != Long.BYTES) {
            metrics.batch(worker, "malformed");
            endReplay(nowNanos);
            return;
        }
        long seq = ByteBuffer.wrap(body.get(body.size() - 2)).getLong();
        if (seq == END_OF_REPLAY) {
            answerOver(answerApplied > 0, nowNanos);
            return;
        }
        replayDeadline = nowNanos + replayTimeoutNanos; // a catch-up may bring thousands: the limit is on silence
        lastReplayedNanos = nowNanos;
        boolean catchingUp = liveness.catchingUp();
        Verdict verdict = seq < 0 ? Verdict.SKIP : liveness.onReplayed(seq);
        if (verdict == Verdict.RESUME) {
            resume(nowNanos);
            return;
        }
        if (verdict == Verdict.SKIP) {
            return;
        }
        if (catchingUp && replayApplied == 0) {
            catchUpFrom = seq;
        }
        if (!applied(new Pending(seq, body.getLast()))) {
            endReplay(nowNanos); // what is left is lost: the held batch finds the gap unfilled
            return;
        }
        replayApplied++;
        answerApplied++;
    }

    /**
     * An answer of the replay is over (its end, a stall, the timeout): a catch-up whose answers still bring batches
     * asks again; anything else ends the replay.
     */
    private void answerOver(boolean broughtBatches, long nowNanos) {
        if (liveness.catchingUp() && broughtBatches && liveness.askAgain()) {
            resume(nowNanos);
        } else {
            endReplay(nowNanos);
        }
    }

    /**
     * Asks the catch-up again from the next batch it needs, on a fresh socket so that nothing more of the last
     * answer is read: what the engine's replay socket dropped is still in its buffer.
     */
    private void resume(long nowNanos) {
        context.destroySocket(replaySocket);
        startReplay(nowNanos);
    }

    /** The replay is over or given up: the held batch (or the catch-up's end), then the backlog. */
    private void endReplay(long nowNanos) {
        if (replaySocket != null) {
            context.destroySocket(replaySocket);
            replaySocket = null;
        }
        if (liveness.catchingUp()) {
            endCatchUp();
        } else {
            releaseHeld(nowNanos);
        }
        // A new gap among them starts a replay of its own: the rest then waits behind its held batch.
        while (!backlog.isEmpty() && replaySocket == null) {
            onLive(backlog.poll(), nowNanos);
        }
    }

    private void endCatchUp() {
        if (!liveness.endCatchUp()) {
            resync("the replay of what the engine buffered before this subscription skipped a batch");
        } else if (replayApplied > 0) {
            LOG.info("worker {}: KV events caught up on batches {} to {}, what its engine still buffered from before "
                    + "this subscription ({})", worker, catchUpFrom, liveness.expected() - 1, endpoint.endpoint());
        }
    }

    private void releaseHeld(long nowNanos) {
        Pending held = backlog.poll();
        long missing = held.seq() - liveness.expected();
        Verdict verdict = liveness.releaseHeld();
        if (liveness.reason() == KvEventLiveness.Reason.BATCHES_LOST) {
            metrics.gap(worker, false);
            metrics.batches(worker, "dropped", (int) Math.min(Integer.MAX_VALUE, missing));
            resync("batches before " + held.seq() + " were lost"
                    + (endpoint.replay() == null ? " (no replay socket)" : " (the replay did not bring them)"));
            verdict = liveness.onLive(held.seq(), nowNanos);
        } else {
            metrics.gap(worker, true);
        }
        if (verdict == Verdict.APPLY) {
            apply(held, nowNanos);
        } else {
            metrics.batch(worker, "skipped");
        }
    }

    private void apply(Pending batch, long nowNanos) {
        if (!applied(batch)) {
            resync("batch " + batch.seq() + " was malformed");
        }
    }

    /** Decodes and applies one batch; false when it was malformed (counted). */
    private boolean applied(Pending batch) {
        KvEventBatch decoded;
        try {
            decoded = decoder.decode(batch.payload());
        } catch (KvEventFormatException e) {
            metrics.batch(worker, "malformed");
            LOG.warn("worker {}: KV event batch {} from {} is malformed: {}", worker, batch.seq(),
                    endpoint.endpoint(), e.getMessage());
            return false;
        }
        if (views.apply(worker, decoded)) {
            viewEpoch++;
            liveness.onCleared();
        }
        metrics.batch(worker, "applied");
        return true;
    }

    /** The view is wrong in ways nobody knows: drop it and rebuild it from the next batch. */
    private void resync(String why) {
        views.clear(worker);
        viewEpoch++;
        liveness.onResync();
        LOG.warn("worker {}: KV events {}; its exact view is cleared and rebuilt from the next batch ({})", worker,
                why, endpoint.endpoint());
    }

    private void publish() {
        Status now = snapshot();
        Status before = status;
        status = now;
        views.exact(worker, now.state() == State.EXACT);
        if (before.state() == now.state()) {
            return;
        }
        if (now.state() == State.EXACT) {
            LOG.info("worker {}: KV events exact ({}) from {}: routing on its exact view", worker, now.reason(),
                    endpoint.endpoint());
        } else {
            LOG.warn("worker {}: KV events {} ({}) from {}: routing on the prefix tree for it{}", worker,
                    KvEventMetrics.label(now.state()), now.reason(), endpoint.endpoint(), tokensAdvice(now));
        }
    }

    /** What an operator should know of a worker whose engine counts tokens otherwise, or nothing. */
    private String tokensAdvice(Status status) {
        if (liveness.reason() != KvEventLiveness.Reason.TOKENS_DIFFER) {
            return "";
        }
        boolean own = status.tokenChecks().differ();
        TokenAgreement.Summary checks = own ? status.tokenChecks() : modelTokens.summary();
        TokenAgreement.Difference last = checks.lastDifference();
        String engines = own ? "its engine" : "the engines of model " + model + " (this one too few checked yet)";
        // Answers without usage are checked by their blocks alone, which leave no counts to quote.
        String evidence = last == null ? " never showed blocks of the gateway's tokens in the events"
                : " counted " + last.engineTokens() + " prompt tokens where the gateway counted " + last.gatewayTokens();
        return "; " + engines + evidence + " (" + checks.differed() + " of " + (checks.differed() + checks.agreed())
                + " prompts checked differ): the tokenizer or chat template is not the gateway's (--tokenizer-path, "
                + "--model-path, --chat-template)";
    }

    private Status snapshot() {
        return new Status(worker, model, endpoint.endpoint(), endpoint.replay(), liveness.state(),
                liveness.reason().name().toLowerCase(Locale.ROOT), lastSequence, tokens.summary());
    }

    private boolean warnedShape;

    private void warnOnce(String what) {
        if (!warnedShape) {
            warnedShape = true;
            LOG.warn("worker {}: {} at {}; such messages are counted as malformed", worker, what,
                    endpoint.endpoint());
        }
    }

    /** One whole message, or null when none waits. */
    private static List<byte[]> receive(ZMQ.Socket socket) {
        byte[] frame = socket.recv(ZMQ.DONTWAIT);
        if (frame == null) {
            return null;
        }
        List<byte[]> frames = new ArrayList<>(3);
        frames.add(frame);
        while (socket.hasReceiveMore()) {
            frames.add(socket.recv(0));
        }
        return frames;
    }
}
