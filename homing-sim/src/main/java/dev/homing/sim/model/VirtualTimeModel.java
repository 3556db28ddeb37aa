package dev.homing.sim.model;

import java.util.List;

/**
 * A model that moves only when its driver tells it how far virtual time has gone: the HTTP server in scaled real
 * time, the offline simulator from its event queue. It never reads a clock or sets a timer.
 *
 * @param <E> what it reports of the steps that ended
 */
public interface VirtualTimeModel<E> {

    /** Lets virtual time reach {@code atNanos}; returns what happened since the last call, in time order. */
    List<E> advanceTo(long atNanos);

    /** When the model next has something to report, or {@link Long#MAX_VALUE} when nothing is pending. */
    long nextEventNanos();
}
