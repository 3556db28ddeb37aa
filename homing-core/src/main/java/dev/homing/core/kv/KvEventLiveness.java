package dev.homing.core.kv;

/**
 * Whether one worker's exact view can be trusted, from its connection to the engine's publisher, the sequence
 * numbers of its event batches, its cache clears and its silence: the rule that keeps exact routing from turning into
 * a guess without anyone knowing.
 *
 * <pre>
 *   NONE (not connected) ──onConnected──▶ EXACT (nothing heard: an empty view) ──first batch──▶ EXACT (in sequence)
 *   NONE ──onConnected, startCatchUp──▶ EXACT (catching up) ──endCatchUp──▶ EXACT (in sequence, or nothing heard)
 *   EXACT ──a gap: HOLD_FOR_REPLAY──▶ STALE (gap pending) ──releaseHeld──▶ EXACT, or STALE (batches lost)
 *   STALE (batches lost) ──onCleared, a restart──▶ EXACT
 *   any state ──onDisconnected──▶ NONE (not connected) ──onConnected──▶ STALE (reconnected) ──its next batch──▶ as it says
 *   EXACT or STALE ──an expectation unmet for the limit (onTick)──▶ NONE (silent) ──its next batch──▶ as it was
 *   any state ──onResync──▶ EXACT (nothing heard: an empty view), or NONE when not connected
 *   EXACT ──onTokensDiffer(true)──▶ STALE (tokens differ) ──onTokensDiffer(false)──▶ as it was
 * </pre>
 * The state is derived from seven facts: whether the connection to the publisher is up (a batch heard proves it too),
 * whether a batch was heard since the connection or the last resync, whether the stream has been silent for the limit
 * when it was expected to speak, whether the engine counts prompts' tokens otherwise than the gateway
 * ({@link TokenAgreement}), whether a gap waits for its replay, whether the connection came back since the last
 * batch, and whether batches were lost for good since the last clear. {@link State#NONE} wins over
 * {@link State#STALE}, which wins over {@link State#EXACT}. The tokens' verdict is the gateway's, not the stream's:
 * a resync or a reconnection leaves it as it is.
 *
 * <p>Protocol, for the subscriber that owns the stream:
 * <ol>
 *   <li>The connection's ups and downs go to {@link #onConnected} and {@link #onDisconnected}.
 *   <li>Each live batch goes to {@link #onLive}; its {@link Verdict} says to apply it, to skip it (a replay already
 *       applied it), to clear the worker's view and then apply it (the publisher restarted: its cache is empty), or
 *       to hold it: batches before it are missing.
 *   <li>On {@link Verdict#HOLD_FOR_REPLAY} the subscriber asks the engine's replay socket from {@link #expected()}
 *       and passes each replayed batch to {@link #onReplayed} (apply or skip as told), then calls
 *       {@link #releaseHeld()} for the held batch. Without a replay socket it calls {@link #releaseHeld()} at once.
 *       Either way the missing batches are applied in order before anything after them, or are lost: a batch is
 *       never applied after a later one, so a replayed store never resurrects a block a later batch removed.
 *   <li>With {@code catchUp}, at the subscription's first connection, when {@link #startCatchUp()} says so, it
 *       asks the replay socket from 0, holds live batches meanwhile, passes each replayed batch to
 *       {@link #onReplayed} and then calls {@link #endCatchUp()} before the held live batches.
 *   <li>After applying a batch that held {@code AllBlocksCleared}, it calls {@link #onCleared()}.
 * </ol>
 * Joining a stream late (or after a restart, or a resync) misses only stores, never a removal of a block the view
 * holds (that removal comes after the store, so a miss of it is a gap): a view so begun under-states what the engine
 * holds and never over-states it. Hence a view is exact from the moment its connection is up, empty until the first
 * batch, and the first batch heard continues it wherever the stream is. With {@code catchUp} (the engine has a
 * replay socket) a new subscription first asks the replay for everything the engine still buffers: an unbroken run of
 * batches up to where the live stream goes on is such a late join too, begun earlier, so the view stays exact while
 * it fills (catching up), and a gateway that starts beside running engines routes on most of what they hold from its
 * first requests instead of on an empty view. Once per subscription: a view rebuilt after a resync continues from
 * its next batch. A connection that comes back is different:
 * the view holds blocks the engine may have lost meanwhile (a restarted engine starts empty), so it waits as STALE
 * for the next batch, whose number tells a stream that went on from one that started over.
 *
 * <p>Silence. An idle engine publishes nothing, so quiet alone means nothing: silence is counted only from an
 * expectation ({@link #expectEvents}), which the routing side raises when a request it placed on the worker has been
 * prefilled (its first token came) with at least one block the engine did not hold: the engine must then have
 * stored blocks. Any batch heard after the request was sent meets it: an engine publishes a step's stores as the step
 * ends, so the batch often comes before the first token, and on a starved gateway well before the token is handled;
 * no batch can carry the request's stores before it was sent. An expectation unmet for the limit makes the stream
 * NONE (silent): so an engine connected but publishing nothing the gateway hears (events on another topic, all
 * dropped) is found out at its first prefill, and its batches lost while the connection stays up are found out one
 * limit after the first request sent since has its first token.
 *
 * <p>Every transition is checked: {@link #onLive} while a gap is pending, or {@link #onReplayed} and
 * {@link #releaseHeld()} while none is, throw {@link IllegalStateException} (a subscriber's bug). Time is passed in
 * (nanoseconds of the caller's clock). Not thread-safe: confined to the worker's subscriber.
 */
public final class KvEventLiveness {

    /** How far the worker's exact view can be trusted. */
    public enum State {
        /** No events flow: no connection to the publisher, or silent for longer than the limit. Route on the tree. */
        NONE,
        /** Every batch since the view began was applied in order (none yet, perhaps). Route on the view. */
        EXACT,
        /**
         * Batches are missing (waiting for a replay, or lost until the next clear), or the connection came back and
         * no batch has said yet whether the engine kept its cache. Route on the tree.
         */
        STALE
    }

    /** Why the state is what it is. */
    public enum Reason {
        /** No connection to the engine's publisher: not made yet, or lost. */
        NOT_CONNECTED,
        /** Connected, and no batch since the connection or the last resync: the view is empty, and exact. */
        NOTHING_HEARD,
        /**
         * A new subscription is applying what the engine's replay socket still buffers from before it, oldest
         * first. The view holds part of what the engine holds, and nothing it does not: exact.
         */
        CATCHING_UP,
        /** The connection came back; the next batch tells whether the view still holds. */
        RECONNECTED,
        /** Expected to publish (a request was prefilled there) and no batch for the silence limit. */
        SILENT,
        /**
         * The engine counts prompts' tokens otherwise than the gateway: its tokenizer or chat template is not the
         * gateway's, so the gateway's look-ups miss the blocks the engine holds. The view is kept, not trusted.
         */
        TOKENS_DIFFER,
        /** Batches are missing; a replay may bring them. */
        GAP_PENDING,
        /** Batches were lost for good; a clear, a restart or a resync ends it. */
        BATCHES_LOST,
        /** Exact. */
        IN_SEQUENCE
    }

    /** What the subscriber does with a batch. */
    public enum Verdict {
        /** Apply it. */
        APPLY,
        /** Already applied (it came in a replay): skip it. */
        SKIP,
        /** Batches before it are missing: hold it, replay them, then {@link #releaseHeld()}. */
        HOLD_FOR_REPLAY,
        /** The publisher restarted with an empty cache: clear the worker's view, then apply it. */
        CLEAR_THEN_APPLY,
        /**
         * A replayed batch past a hole in a catch-up: the engine's replay socket dropped what its queue could not
         * take. Ask the replay again from {@link #expected()}, the engine still buffers the rest.
         */
        RESUME
    }

    /**
     * How often one catch-up asks again (past a hole, after an end or a stall): a queue of 1,000 batches at least
     * goes through each time, so 64 asks cover several times the engines' default buffer of 10,000.
     */
    static final int MAX_RESUMES = 64;

    private final long silenceNanos;
    /** Whether a new subscription first replays what the engine still buffers. */
    private final boolean catchUp;
    /** Whether this subscription's catch-up was started: once per subscription. */
    private boolean caughtUpOnce;
    /** Whether a catch-up replay runs; whether it applied a batch yet (its first may be past 0); whether it skipped one. */
    private boolean catchingUp;
    private boolean caughtAny;
    private boolean caughtWithHole;
    /** Asked again after a hole, nothing applied since: the next batch must be the one expected. */
    private boolean resumeAsked;
    private int resumes;
    /** Live batches up to here came in the catch-up already: skipped until the connection drops, else -1. */
    private long caughtThrough = -1;

    private boolean connected;
    private boolean heard;
    private boolean reconnected;
    private boolean silent;
    private boolean lost;
    private boolean tokensDiffer;
    /** The sequence number of the next batch to apply; meaningful once heard. */
    private long expected;
    /** The last live sequence number seen: a live stream only goes up, unless its publisher restarted. */
    private long lastLive = -1;
    /** The held batch's sequence number while a gap is pending, else -1. */
    private long held = -1;
    private long lastHeardNanos;
    /** When the oldest expectation not met yet was raised; meaningful while {@link #expecting}. */
    private long expectedSinceNanos;
    private boolean expecting;

    /** @param silenceNanos how long without a batch before the stream counts as gone */
    public KvEventLiveness(long silenceNanos) {
        this(silenceNanos, false);
    }

    /**
     * @param silenceNanos how long without a batch before the stream counts as gone
     * @param catchUp      whether the engine can replay: a new subscription then first replays what the engine still
     *                     buffers ({@link #startCatchUp()})
     */
    public KvEventLiveness(long silenceNanos, boolean catchUp) {
        if (silenceNanos <= 0) {
            throw new IllegalArgumentException("the silence limit is positive, got " + silenceNanos);
        }
        this.silenceNanos = silenceNanos;
        this.catchUp = catchUp;
    }

    public State state() {
        return switch (reason()) {
            case NOT_CONNECTED, SILENT -> State.NONE;
            case TOKENS_DIFFER, RECONNECTED, GAP_PENDING, BATCHES_LOST -> State.STALE;
            case NOTHING_HEARD, CATCHING_UP, IN_SEQUENCE -> State.EXACT;
        };
    }

    public Reason reason() {
        if (!connected) {
            return Reason.NOT_CONNECTED;
        }
        if (silent) {
            return Reason.SILENT;
        }
        if (tokensDiffer) {
            return Reason.TOKENS_DIFFER;
        }
        if (catchingUp) {
            return Reason.CATCHING_UP;
        }
        if (!heard) {
            return Reason.NOTHING_HEARD;
        }
        if (held >= 0) {
            return Reason.GAP_PENDING;
        }
        if (reconnected) {
            return Reason.RECONNECTED;
        }
        return lost ? Reason.BATCHES_LOST : Reason.IN_SEQUENCE;
    }

    /** The connection to the engine's publisher is up (its handshake done). */
    public void onConnected() {
        if (!connected && heard) {
            reconnected = true;
        }
        connected = true;
    }

    /** The connection to the engine's publisher is down: nothing can be heard until it is up again. */
    public void onDisconnected() {
        connected = false;
        caughtThrough = -1; // back, a batch numbered at or below what the catch-up brought is a restart
        caughtWithHole |= catchingUp; // the engine may restart meanwhile: a catch-up across a drop is not trusted
        silent = false;
        expecting = false;
    }

    /** Whether a catch-up replay runs ({@link #startCatchUp()} until {@link #endCatchUp()}). */
    public boolean catchingUp() {
        return catchingUp;
    }

    /**
     * At the subscription's first connection, with {@code catchUp}: whether to ask the replay socket, from
     * {@link #expected()} (0), for what the engine still buffers, holding live batches until {@link #endCatchUp()}.
     */
    public boolean startCatchUp() {
        require(held < 0, "catch up while a gap waits for its replay");
        if (!catchUp || caughtUpOnce || heard || !connected) {
            return false;
        }
        caughtUpOnce = true;
        catchingUp = true;
        caughtAny = false;
        caughtWithHole = false;
        resumeAsked = false;
        resumes = 0;
        expected = 0;
        return true;
    }

    /**
     * The catch-up replay is over (ended, given up or cut by a malformed batch): false when it skipped a batch, so
     * that what it applied may hold blocks a skipped batch removed (the caller resyncs); true when what it applied,
     * if anything, is an unbroken run. The held live batches follow, those the replay brought skipped.
     */
    public boolean endCatchUp() {
        require(catchingUp, "end a catch-up that never began");
        catchingUp = false;
        if (!caughtAny || caughtWithHole) {
            return !caughtWithHole;
        }
        heard = true;
        lastLive = expected - 1;
        caughtThrough = expected - 1;
        return true;
    }

    /**
     * A catch-up's answer ended having brought batches: whether to ask again from {@link #expected()}. An engine's
     * replay socket drops what its queue cannot take, its end marker included or not, so an answer's end proves
     * nothing; the catch-up is over when an answer brings nothing new (or after {@link #MAX_RESUMES} asks).
     */
    public boolean askAgain() {
        require(catchingUp, "ask a catch-up again when none runs");
        if (resumes >= MAX_RESUMES) {
            return false;
        }
        resumes++;
        resumeAsked = true;
        return true;
    }

    /** The sequence number of the next batch to apply (where a replay starts); -1 before the first batch. */
    public long expected() {
        return heard || catchingUp ? expected : -1;
    }

    /** A batch from the live stream. */
    public Verdict onLive(long seq, long nowNanos) {
        requireSeq(seq);
        require(held < 0, "take a live batch while a gap waits for its replay");
        require(!catchingUp, "take a live batch while the catch-up runs");
        lastHeardNanos = nowNanos;
        connected = true;
        reconnected = false;
        silent = false;
        expecting = false;
        if (!heard) {
            heard = true;
            lastLive = seq;
            expected = seq + 1;
            return Verdict.APPLY;
        }
        if (seq <= caughtThrough) {
            return Verdict.SKIP; // published while the catch-up ran, and brought by it
        }
        caughtThrough = -1;
        if (seq <= lastLive) {
            lastLive = seq;
            expected = seq + 1;
            lost = false;
            return Verdict.CLEAR_THEN_APPLY;
        }
        lastLive = seq;
        if (seq < expected) {
            return Verdict.SKIP;
        }
        if (seq == expected) {
            expected++;
            return Verdict.APPLY;
        }
        held = seq;
        return Verdict.HOLD_FOR_REPLAY;
    }

    /**
     * A batch the replay socket sent while a gap is pending or a catch-up runs: {@link Verdict#APPLY},
     * {@link Verdict#SKIP}, or, past a hole in a catch-up, {@link Verdict#RESUME} (once per hole, while the run goes on).
     */
    public Verdict onReplayed(long seq) {
        requireSeq(seq);
        require(held >= 0 || catchingUp, "take a replayed batch with no gap pending and no catch-up");
        if (seq < expected) {
            return Verdict.SKIP;
        }
        if (catchingUp && !caughtAny) {
            // A catch-up starts wherever the engine's buffer does: before it the view holds nothing to contradict.
            caughtAny = true;
            expected = seq + 1;
            return Verdict.APPLY;
        }
        if (seq > expected) {
            if (catchingUp && !resumeAsked && askAgain()) {
                return Verdict.RESUME;
            }
            caughtWithHole |= catchingUp;
            // The replay buffer no longer reaches back to the gap: what it sends now would apply out of order.
            return Verdict.SKIP;
        }
        resumeAsked = false;
        expected++;
        return Verdict.APPLY;
    }

    /**
     * The replay is over (or there is none): what to do with the held batch. The gap is filled when every batch
     * before the held one was applied; else those batches are lost and the view stays STALE until a clear.
     */
    public Verdict releaseHeld() {
        require(held >= 0, "release a held batch with no gap pending");
        long seq = held;
        held = -1;
        if (expected > seq) {
            return Verdict.SKIP;
        }
        if (expected < seq) {
            lost = true;
        }
        expected = seq + 1;
        return Verdict.APPLY;
    }

    /** A batch holding {@code AllBlocksCleared} was applied: nothing from before it matters any more. */
    public void onCleared() {
        require(heard || catchingUp, "clear a view that never heard a batch");
        lost = false;
    }

    /** The caller dropped the worker's view to rebuild it from the next batch (as at the start). */
    public void onResync() {
        heard = false;
        catchingUp = false;
        caughtThrough = -1;
        reconnected = false;
        silent = false;
        lost = false;
        held = -1;
        lastLive = -1;
        expecting = false;
    }

    /**
     * The engine should publish soon: a request sent to it at {@code sentNanos} was prefilled (its first token came
     * at {@code nowNanos}) with blocks it did not hold. Met by any batch heard from {@code sentNanos} on; the oldest
     * expectation not met counts, from {@code nowNanos}.
     */
    public void expectEvents(long sentNanos, long nowNanos) {
        if (!connected || heard && lastHeardNanos - sentNanos >= 0) {
            return;
        }
        if (!expecting) {
            expecting = true;
            expectedSinceNanos = nowNanos;
        }
    }

    /** The gateway's verdict on the engine's token counts ({@link TokenAgreement#differ()}) now. */
    public void onTokensDiffer(boolean differ) {
        tokensDiffer = differ;
    }

    /** The clock moved: a stream that was expected to speak and did not for the silence limit goes NONE. */
    public void onTick(long nowNanos) {
        if (expecting && nowNanos - expectedSinceNanos >= silenceNanos) {
            silent = true;
        }
    }

    private static void requireSeq(long seq) {
        if (seq < 0) {
            throw new IllegalArgumentException("a batch's sequence number is not negative, got " + seq);
        }
    }

    private void require(boolean legal, String action) {
        if (!legal) {
            throw new IllegalStateException("cannot " + action + " (" + state() + ", " + reason() + ")");
        }
    }
}
