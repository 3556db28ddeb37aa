package dev.homing.sim.http;

import dev.homing.sim.model.VirtualTimeModel;
import io.vertx.core.Timer;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Drives one engine model (a rank's {@link dev.homing.sim.model.Engine}, a prefill or a decode role) in real time
 * scaled by {@code timeScale}: virtual time is the real time elapsed since start-up times the scale, and one timer
 * wakes the model when its next event is due. Events that came due between two wake-ups are all delivered at the
 * next one. The timer counts nanoseconds (a task on the Netty event loop), not Vert.x's milliseconds: at a high scale
 * an answer due a few microseconds after its request would otherwise wait a whole millisecond, or not at all when the
 * event loop happened to be slow enough for it to be due already, and the engine's latency would flip between the two
 * with its own JIT state.
 *
 * <p>Each event goes to the observer, then to the listener of its key (a request id, a bootstrap room); the key's
 * last event ({@code ends}) removes its listener ({@link KeyedListeners}). Callers change the model themselves, at
 * {@link #virtualNow()}, then {@link #pump} (or {@link #pumpSoon}) so that what they changed is delivered and the timer
 * set again.
 *
 * <p>Delivery takes turns with the event loop's other work: one pump delivers for at most {@link #TURN_NANOS} and
 * leaves the rest of what came due for a pump right after the loop's pending I/O, and the model moves on only once
 * everything it reported is delivered. When the machine is too busy for the engine to keep up with scaled real time,
 * the engine falls behind (as an overloaded engine does) while its server still answers {@code /get_load} and hears
 * its clients hang up; without the turns, each pump had more to deliver than the one before and held the loop for
 * ever longer.
 *
 * <p>Confined to one Vert.x context (the server's event loop): every method must be called on it.
 *
 * @param <M> the model
 * @param <E> its events
 */
final class ModelDriver<M extends VirtualTimeModel<E>, E> {
    /** How long one pump may deliver before it lets the event loop serve its connections. */
    static final long TURN_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final Vertx vertx;
    private final M model;
    private final double timeScale;
    private final long startNanos;
    private final KeyedListeners<E> listeners;
    /** What the model reported and a pump has not delivered yet, in time order. */
    private final ArrayDeque<E> due = new ArrayDeque<>();
    private boolean pumping;
    private boolean pumpAgain;
    private Timer timer;
    private long timerTargetNanos = Long.MAX_VALUE;

    /** @param startNanos the real time ({@link System#nanoTime}) virtual time counts from: one for all a server's */
    ModelDriver(Vertx vertx, M model, double timeScale, long startNanos, Consumer<E> observer,
                ToLongFunction<E> key, Predicate<E> ends) {
        this.vertx = vertx;
        this.model = model;
        this.timeScale = timeScale;
        this.startNanos = startNanos;
        this.listeners = new KeyedListeners<>(observer, key, ends);
    }

    /** The model: change it only on the event loop, at {@link #virtualNow()}, then pump. */
    M model() {
        return model;
    }

    /** {@code listener} hears the events of {@code eventKey} from the next delivery on, until its last. */
    void listen(long eventKey, Consumer<E> listener) {
        listeners.listen(eventKey, listener);
    }

    /** The listener of {@code eventKey} hears nothing more. */
    void forget(long eventKey) {
        listeners.forget(eventKey);
    }

    /** Virtual nanoseconds since start-up. */
    long virtualNow() {
        return (long) ((System.nanoTime() - startNanos) * timeScale);
    }

    /**
     * Delivers at the next turn of the event loop: a caller that has just submitted a request has not finished
     * setting up its response, and pumping at once could deliver its first event before its headers are written.
     */
    void pumpSoon() {
        vertx.runOnContext(v -> pump());
    }

    /**
     * Delivers every event due by now and sets the timer for the next one; or, when that takes longer than a turn,
     * what it delivered within the turn, and sets the timer to go on after the loop's pending I/O.
     */
    void pump() {
        // A listener may change the model (a fault, a disconnect), which pumps again: that inner pump must not deliver
        // later events before the outer loop has delivered the earlier ones it holds, so it only asks for a repeat.
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        long turnEnd = System.nanoTime() + TURN_NANOS;
        try {
            do {
                if (due.isEmpty()) {
                    pumpAgain = false;
                    due.addAll(model.advanceTo(virtualNow()));
                }
                while (!due.isEmpty() && System.nanoTime() - turnEnd < 0) {
                    listeners.deliver(due.poll());
                }
            } while ((pumpAgain || !due.isEmpty()) && System.nanoTime() - turnEnd < 0);
        } finally {
            pumping = false;
        }
        if (due.isEmpty() && !pumpAgain) {
            schedule();
        } else {
            continueNextTurn();
        }
    }

    void close() {
        cancelTimer();
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel();
            timer = null;
        }
    }

    /** A timer rather than a task: Netty runs it after the I/O that is ready now, not before. */
    private void continueNextTurn() {
        cancelTimer();
        timerTargetNanos = Long.MIN_VALUE;
        setTimer(1);
    }

    private void schedule() {
        long next = model.nextEventNanos();
        if (next == timerTargetNanos && timer != null) {
            return;
        }
        cancelTimer();
        timerTargetNanos = next;
        if (next == Long.MAX_VALUE) {
            return;
        }
        setTimer(Math.max(1, (long) Math.ceil((next - virtualNow()) / timeScale)));
    }

    private void setTimer(long delayNanos) {
        Timer set = vertx.timer(delayNanos, TimeUnit.NANOSECONDS);
        timer = set;
        set.onSuccess(v -> {
            if (timer == set) {
                timer = null;
                timerTargetNanos = Long.MAX_VALUE;
                pump();
            }
        });
    }
}
