package dev.homing.gateway.kvevents;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.ExactMatch;
import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvIndexStats;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.TokenBlocks;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One model's exact view: what every worker's engine holds, from its KV events, and which workers' views can be
 * trusted now. The routing asks {@link #lookup} from the event loops; the subscriber thread applies batches.
 *
 * <p>Concurrency: the index is guarded by {@link #lock}, held for one batch's events or one lookup's walk, never
 * across I/O, so a lookup waits at most for one batch. The set of exact workers is a concurrent set the subscriber
 * thread updates as states change.
 */
public final class ExactViews {

    private final ReentrantLock lock = new ReentrantLock();
    /** @GuardedBy lock */
    private final ExactKvIndex index;
    private final Set<String> exactWorkers = ConcurrentHashMap.newKeySet();

    public ExactViews(TokenBlocks blocks, long maxEngineBlocks) {
        this.index = new ExactKvIndex(blocks, maxEngineBlocks);
    }

    /** Whether any worker's view is exact now: else a lookup has nothing to say, and the prompt need not be read. */
    public boolean anyExact() {
        return !exactWorkers.isEmpty();
    }

    /** For each worker whose view is exact now, the prompt's leading tokens its engine holds. */
    public ExactOverlay lookup(int[] tokens, KvNamespace namespace) {
        if (exactWorkers.isEmpty()) {
            return new ExactOverlay(tokens.length, Map.of());
        }
        long[] hashes = index.blocks().hashes(tokens, namespace);
        ExactMatch match;
        lock.lock();
        try {
            match = index.match(hashes);
        } finally {
            lock.unlock();
        }
        Map<String, Integer> cached = new HashMap<>();
        for (String worker : exactWorkers) {
            cached.put(worker, match.tokens(worker));
        }
        return new ExactOverlay(tokens.length, Map.copyOf(cached));
    }

    public TokenBlocks blocks() {
        return index.blocks();
    }

    /** Applies a batch's events in order; returns whether it held a cache clear. */
    boolean apply(String worker, KvEventBatch batch) {
        boolean cleared = false;
        lock.lock();
        try {
            for (KvEvent event : batch.events()) {
                index.apply(worker, event);
                cleared |= event instanceof KvEvent.AllBlocksCleared;
            }
        } finally {
            lock.unlock();
        }
        return cleared;
    }

    /** Forgets what {@code worker} holds, to rebuild it from its next batch. */
    void clear(String worker) {
        lock.lock();
        try {
            index.clear(worker);
        } finally {
            lock.unlock();
        }
    }

    /** Forgets {@code worker} altogether. */
    void remove(String worker) {
        exactWorkers.remove(worker);
        lock.lock();
        try {
            index.remove(worker);
        } finally {
            lock.unlock();
        }
    }

    void exact(String worker, boolean exact) {
        if (exact) {
            exactWorkers.add(worker);
        } else {
            exactWorkers.remove(worker);
        }
    }

    public KvIndexStats stats() {
        lock.lock();
        try {
            return index.stats();
        } finally {
            lock.unlock();
        }
    }
}
