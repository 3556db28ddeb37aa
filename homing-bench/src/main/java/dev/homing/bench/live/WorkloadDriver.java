package dev.homing.bench.live;

import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Drives a {@link Workload} through a {@link LoadClient}: starts conversations by the {@link Pacing}, sends each
 * turn with the history of the answers the server really gave, waits the think time between turns, and stops at
 * the {@link RunCaps}. Every request sent reaches the {@link OutcomeListener} exactly once, as a success or an error
 * of a kind; at the duration cap the requests in flight are cancelled and counted as cancelled.
 *
 * <p>Open loop sends on Vert.x's millisecond timers: a request may leave up to about a millisecond after it was
 * due (never before), and that lateness counts in its latency rather than being hidden.
 *
 * <p>All state is confined to the given context (the client's); {@link #run} may be called from any thread, once.
 * The workload's stream is read on that context, lazily, one conversation ahead.
 */
public final class WorkloadDriver {

    private final Context context;
    private final LoadClient client;
    private final RequestEncoder encoder;
    private final Pacing pacing;
    private final RunCaps caps;
    private final OutcomeListener listener;
    private final Promise<DriverSummary> done = Promise.promise();

    private Stream<Conversation> stream;
    private Iterator<Conversation> source;
    private Conversation lookahead;
    private boolean sourceExhausted;
    private final Set<Live> live = new LinkedHashSet<>();
    private final Queue<ReadyTurn> ready = new ArrayDeque<>();
    private long startNanos;
    private long sent;
    private int inFlight;
    private int thinking;
    private long unsentTurns;
    private boolean stopped;
    private boolean stoppedAtCap;
    private boolean finished;
    private long capTimer = -1;
    private long startTimer = -1;

    /** A conversation that has started: its script and the answers so far. */
    private static final class Live {
        final Conversation conversation;
        final List<String> answers = new ArrayList<>();

        Live(Conversation conversation) {
            this.conversation = conversation;
        }

        int remainingTurns() {
            return conversation.turns().size() - answers.size();
        }
    }

    private record ReadyTurn(Live conversation, int turn) {
    }

    /** @param context the context the client was created for and is used on */
    public WorkloadDriver(Context context, LoadClient client, DrivePlan plan, OutcomeListener listener) {
        this.context = context;
        this.client = client;
        this.encoder = plan.encoder();
        this.pacing = plan.pacing();
        this.caps = plan.caps();
        this.listener = listener;
    }

    /** Runs the workload; the future completes when every sent request has ended, or fails if the workload does. */
    public Future<DriverSummary> run(Workload workload) {
        context.runOnContext(v -> {
            try {
                stream = workload.conversations();
                source = stream.iterator();
                startNanos = System.nanoTime();
                capTimer = context.owner().setTimer(caps.duration().toMillis(), id -> stopAtCap());
                pump();
            } catch (RuntimeException e) {
                abort(e);
            }
        });
        return done.future();
    }

    /** Sends what the pacing allows now; arms a timer for the next open-loop start. */
    private void pump() {
        if (pacing instanceof Pacing.ClosedLoop closed) {
            fill(closed.concurrency());
        } else {
            startDue();
        }
        checkFinished();
    }

    private void startDue() {
        if (startTimer >= 0) {
            return; // already waiting for the next start, which only a timer can make due
        }
        while (canSend()) {
            Conversation next = peek();
            if (next == null) {
                return;
            }
            long due = startNanos + next.startMicros() * 1_000;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                // Round up: a timer that fires early would find nothing due and spin.
                startTimer = context.owner().setTimer(Math.max(1, (wait + 999_999) / 1_000_000), id -> {
                    startTimer = -1;
                    guarded(this::pump);
                });
                return;
            }
            lookahead = null;
            Live conversation = new Live(next);
            live.add(conversation);
            send(conversation, 0, due);
        }
    }

    private void fill(int concurrency) {
        while (canSend() && inFlight < concurrency) {
            ReadyTurn turn = ready.poll();
            if (turn != null) {
                send(turn.conversation(), turn.turn(), System.nanoTime());
                continue;
            }
            Conversation next = peek();
            if (next == null) {
                return;
            }
            lookahead = null;
            Live conversation = new Live(next);
            live.add(conversation);
            send(conversation, 0, System.nanoTime());
        }
    }

    private Conversation peek() {
        if (lookahead == null && !sourceExhausted) {
            if (source.hasNext()) {
                lookahead = source.next();
            } else {
                sourceExhausted = true;
            }
        }
        return lookahead;
    }

    private boolean canSend() {
        return !stopped && sent < caps.maxRequests();
    }

    private void send(Live conversation, int turn, long intendedNanos) {
        Conversation script = conversation.conversation;
        Turn spec = script.turns().get(turn);
        byte[] body = encoder.encode(ChatHistory.messages(script, turn, conversation.answers), spec.maxOutputTokens());
        boolean keepText = turn + 1 < script.turns().size();
        sent++;
        inFlight++;
        listener.requestSent();
        client.send(new LoadRequest(body, encoder.stream(), keepText), intendedNanos)
                .onComplete(ar -> guarded(() -> ended(conversation, turn, ar.result())));
    }

    private void ended(Live conversation, int turn, RequestOutcome outcome) {
        inFlight--;
        listener.record(outcome);
        Conversation script = conversation.conversation;
        if (outcome.succeeded()) {
            conversation.answers.add(outcome.text() == null ? "" : outcome.text());
        }
        int next = turn + 1;
        if (!outcome.succeeded() || next == script.turns().size() || !canSend()) {
            // Without its answer a conversation cannot go on; its later turns are counted as unsent.
            unsentTurns += script.turns().size() - next;
            live.remove(conversation);
        } else {
            thinkThenSend(conversation, next);
        }
        pump();
    }

    private void thinkThenSend(Live conversation, int turn) {
        long thinkNanos = conversation.conversation.turns().get(turn).thinkMicros() * 1_000;
        long due = System.nanoTime() + thinkNanos;
        boolean closed = pacing instanceof Pacing.ClosedLoop;
        if (thinkNanos == 0) {
            if (closed) {
                ready.add(new ReadyTurn(conversation, turn));
            } else {
                send(conversation, turn, due);
            }
            return;
        }
        thinking++;
        context.owner().setTimer((thinkNanos + 999_999) / 1_000_000, id -> guarded(() -> {
            thinking--;
            if (finished) {
                return;
            }
            if (!canSend()) {
                checkFinished();
            } else if (closed) {
                ready.add(new ReadyTurn(conversation, turn));
                pump();
            } else {
                send(conversation, turn, due);
                checkFinished();
            }
        }));
    }

    private void stopAtCap() {
        capTimer = -1;
        if (finished) {
            return;
        }
        stopped = true;
        stoppedAtCap = true;
        client.cancelAll();
        checkFinished();
    }

    private void checkFinished() {
        if (finished || inFlight > 0) {
            return;
        }
        boolean moreToSend = canSend() && (thinking > 0 || !ready.isEmpty() || peek() != null);
        if (moreToSend) {
            return;
        }
        finished = true;
        stopped = true;
        cancelTimers();
        for (Live conversation : live) {
            unsentTurns += conversation.remainingTurns();
        }
        stream.close();
        done.complete(new DriverSummary(startNanos, System.nanoTime(), stoppedAtCap, unsentTurns));
    }

    private void guarded(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            abort(e);
        }
    }

    /** The workload failed (a bad trace line): stop, cancel what is in flight, and report the cause. */
    private void abort(RuntimeException cause) {
        if (finished) {
            return;
        }
        finished = true;
        stopped = true;
        cancelTimers();
        client.cancelAll();
        if (stream != null) {
            stream.close();
        }
        done.fail(cause);
    }

    private void cancelTimers() {
        if (capTimer >= 0) {
            context.owner().cancelTimer(capTimer);
        }
        if (startTimer >= 0) {
            context.owner().cancelTimer(startTimer);
        }
    }
}
