package dev.homing.core.policy;

import java.util.List;

/**
 * Chooses a worker for a request. One instance serves one model. Implementations are thread-safe: the gateway
 * calls {@link #select} from several event loops at once.
 *
 * <p>A policy knows nothing of HTTP, threads or wall clocks: time comes from the clock it was built with, and the
 * caller runs {@link #maintain()} on its own schedule (the gateway every {@code --eviction-interval} seconds, the
 * simulator on its virtual clock).
 */
public interface RoutingPolicy {

    /** The name users give on the command line, such as {@code cache_aware}. */
    String name();

    /**
     * Picks one of {@code workers} (the model's workers, available or not) for {@code request}. Never picks an
     * unavailable worker; returns a {@link Decision#none} when no worker can take the request.
     */
    Decision select(List<WorkerView> workers, RoutingRequest request);

    /** A worker left the model: forget what is known of it. */
    default void onWorkerRemoved(String workerId) {
    }

    /** Periodic housekeeping (tree eviction, idle-session expiry). Cheap when there is nothing to do. */
    default void maintain() {
    }
}
