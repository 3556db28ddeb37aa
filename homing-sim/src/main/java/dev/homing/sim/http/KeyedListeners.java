package dev.homing.sim.http;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Where a model's events go: each to the observer, then to the listener of its key (a request id, a bootstrap room);
 * a key's last event ({@code ends}) removes its listener. Confined to its driver's event loop, like the driver.
 *
 * @param <E> the events
 */
final class KeyedListeners<E> {
    private final Consumer<E> observer;
    private final ToLongFunction<E> key;
    private final Predicate<E> ends;
    private final Map<Long, Consumer<E>> listeners = new HashMap<>();

    KeyedListeners(Consumer<E> observer, ToLongFunction<E> key, Predicate<E> ends) {
        this.observer = observer;
        this.key = key;
        this.ends = ends;
    }

    void listen(long eventKey, Consumer<E> listener) {
        listeners.put(eventKey, listener);
    }

    void forget(long eventKey) {
        listeners.remove(eventKey);
    }

    void deliver(E event) {
        observer.accept(event);
        long eventKey = key.applyAsLong(event);
        Consumer<E> listener = ends.test(event) ? listeners.remove(eventKey) : listeners.get(eventKey);
        if (listener != null) {
            listener.accept(event);
        }
    }
}
