package dev.homing.sim.http;

import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Drives the {@link Engine} in real time scaled by {@code timeScale}: virtual time is the real time elapsed since
 * start-up times the scale, and one timer wakes the engine when its current step ends. Steps that ended between two
 * wake-ups (timers have millisecond granularity, which matters at a high scale) are all delivered at the next one.
 *
 * <p>Confined to one Vert.x context (the server's event loop): every method must be called on it.
 */
final class EngineDriver {
    private final Vertx vertx;
    private final Engine engine;
    private final double timeScale;
    private final long startNanos = System.nanoTime();
    private final Map<Long, Consumer<Progress>> listeners = new HashMap<>();
    private boolean pumping;
    private boolean pumpAgain;
    private final Consumer<Progress> observer;
    private long timerId = -1;
    private long timerTargetNanos = Long.MAX_VALUE;

    EngineDriver(Vertx vertx, Engine engine, double timeScale, Consumer<Progress> observer) {
        this.vertx = vertx;
        this.engine = engine;
        this.timeScale = timeScale;
        this.observer = observer;
    }

    /**
     * Queues a request; {@code listener} hears each of its progress events, the last one finished.
     *
     * @throws IllegalArgumentException if the engine can never run it
     */
    long submit(GenerationRequest request, Consumer<Progress> listener) {
        // The caller hears of its own request only from a later turn of the event loop, after it has finished
        // setting up its response: pumping here could deliver its first progress before its headers are written.
        long id = engine.submit(request, virtualNow());
        listeners.put(id, listener);
        vertx.runOnContext(v -> pump());
        return id;
    }

    /** Abandons a request; its listener hears nothing more. */
    void abort(long requestId) {
        listeners.remove(requestId);
        engine.abort(requestId, virtualNow());
        pump();
    }

    EngineStats stats() {
        pump();
        return engine.stats();
    }

    boolean flushCache() {
        pump();
        return engine.flushCache(virtualNow());
    }

    /** Virtual nanoseconds since start-up. */
    long virtualNow() {
        return (long) ((System.nanoTime() - startNanos) * timeScale);
    }

    Engine engine() {
        return engine;
    }

    void close() {
        if (timerId >= 0) {
            vertx.cancelTimer(timerId);
            timerId = -1;
        }
    }

    private void pump() {
        pump(virtualNow());
    }

    private void pump(long now) {
        // A listener may abort (a fault, a disconnect), which pumps again: that inner pump must not deliver later
        // progress before the outer loop has delivered the earlier progress it holds, so it only asks for a repeat.
        if (pumping) {
            pumpAgain = true;
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                for (Progress progress : engine.advanceTo(now)) {
                    observer.accept(progress);
                    Consumer<Progress> listener = progress.finished()
                        ? listeners.remove(progress.requestId())
                        : listeners.get(progress.requestId());
                    if (listener != null) {
                        listener.accept(progress);
                    }
                }
            } while (pumpAgain);
        } finally {
            pumping = false;
        }
        schedule();
    }

    private void schedule() {
        long next = engine.nextEventNanos();
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
