package dev.homing.core.policy;

import dev.homing.core.tree.PrefixTree;
import dev.homing.core.tree.TreeStats;

import java.util.List;
import java.util.Optional;

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
     * unavailable worker; returns a {@link Decision#none} when no worker can take the request. The list is a value:
     * the caller never changes it afterwards, so a policy may keep it to recognise the next decision's list.
     */
    Decision select(List<WorkerView> workers, RoutingRequest request);

    /**
     * The worker sent the first token of a request this policy placed with {@code decision}: its prefill is done.
     * Called at most once a request, before {@link #onCompleted}; a caller that cannot see the first token skips it.
     */
    default void onFirstToken(String workerId, Decision decision) {
    }

    /**
     * A request this policy placed on {@code workerId} with {@code decision} is over, answered or failed. Called
     * exactly once a request, with what the engine reported ({@link EngineReport#unknown} when it reported nothing).
     */
    default void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
    }

    /** The worker's engine holds at most {@code kvTokens} tokens of KV cache (from its server info). */
    default void onWorkerCapacity(String workerId, long kvTokens) {
    }

    /** A worker left the model: forget what is known of it. */
    default void onWorkerRemoved(String workerId) {
    }

    /** Periodic housekeeping (tree eviction, idle-session expiry). Cheap when there is nothing to do. */
    default void maintain() {
    }

    /**
     * Another gateway replica placed a request on {@code workerId} that computes {@code uncachedChars} prompt
     * characters there: a policy that weighs recent work counts it as if it had placed it itself.
     */
    default void onRemotePlacement(String workerId, int uncachedChars) {
    }

    /** The prefix tree this policy routes by, which gateway replicas keep in step; empty for a policy without one. */
    default Optional<PrefixTree> routingTree() {
        return Optional.empty();
    }

    /** The size of the prefix tree this policy routes by, for metrics; empty for a policy that keeps none. */
    default Optional<TreeStats> treeStats() {
        return Optional.empty();
    }
}
