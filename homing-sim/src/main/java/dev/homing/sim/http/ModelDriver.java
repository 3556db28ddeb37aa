package dev.homing.sim.http;

import dev.homing.sim.model.VirtualTimeModel;
import io.vertx.core.Vertx;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Drives one engine model (a rank's {@link dev.homing.sim.model.Engine}, a prefill or a decode role) in real time
 * scaled by {@code timeScale}: virtual time is the real time elapsed since start-up times the scale, and one timer
 * wakes the model when its next event is due. Events that came due between two wake-ups (timers have millisecond
 * granularity, which matters at a high scale) are all delivered at the next one.
 *
 * <p>Each event goes to the observer, then to the listener of its key (a request id, a bootstrap room); the key's
 * last event ({@code ends}) removes its listener ({@link KeyedListeners}). Callers change the model themselves, at
 * {@link #virtualNow()}, then {@link #pump} (or {@link #pumpSoon}) so that what they changed is delivered and the timer
 * set again.
 *
 * <p>Confined to one Vert.x context (the server's event loop): every method must be called on it.
 *
 * @param <M> the model
 * @param <E> its events
 */
final class ModelDriver<M extends VirtualTimeModel<E>, E> {
    private final Vertx vertx;
    private final M model;
    private final double timeScale;
    private final long startNanos;
    private final KeyedListeners<E> listeners;
    private boolean pumping;
    private boolean pumpAgain;
    private long timerId = -1;
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

    /** Delivers every event due by now and sets the timer for the next one. */
    void pump() {
        // A listener may change the model (a fault, a disconnect), which pumps again: that inner pump must not deliver
        // later events before the outer loop has delivered the earlier ones it holds, so it only asks for a repeat.
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                for (E event : model.advanceTo(virtualNow())) {
                    listeners.deliver(event);
                }
            } while (pumpAgain);
        } finally {
            pumping = false;
        }
        schedule();
    }

    void close() {
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }

    private void schedule() {
        long next = model.nextEventNanos();
        if (next == timerTargetNanos && timerId >= 0) {
            return;
        }
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
        timerTargetNanos = next;
        if (next == Long.MAX_VALUE) {
            return;
        }
        double realNanos = (next - virtualNow()) / timeScale;
        long delayMillis = Math.max(1, (long) Math.ceil(realNanos / 1_000_000));
        timerId = vertx.setTimer(delayMillis, id -> {
            timerId = -1;
            timerTargetNanos = Long.MAX_VALUE;
            pump();
        });
    }
}
