package dev.homing.gateway.kvevents;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.ExactMatch;
import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvIndexStats;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.TokenBlocks;
import dev.homing.tokenizer.TokenRuns;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One model's exact view: what every worker's engine holds, from its KV events, and which workers' views can be
 * trusted now. The routing walks it ({@link #walk}) from the event loops and worker threads; the subscriber thread
 * applies batches.
 *
 * <p>Concurrency: the index is guarded by {@link #lock}, held for one batch's events or one run of a prompt's
 * tokens, never across I/O, so a look-up waits at most for one batch. The set of exact workers is a concurrent set
 * the subscriber thread updates as states change.
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
        PromptWalk walk = walk(namespace);
        walk.accept(tokens);
        return walk.overlay(tokens.length);
    }

    /** A look-up fed the prompt's tokens as they are encoded ({@link PromptWalk}). */
    public PromptWalk walk(KvNamespace namespace) {
        return new PromptWalk(index.blocks().chain(namespace), index.walk());
    }

    /**
     * One prompt's look-up, taking its tokens run by run as the tokenizer encodes them and telling it to stop once
     * no engine holds the last whole block: past it nothing is cached anywhere, so the rest of a long prompt need
     * not be encoded at all. Holds the lock for each run's blocks only. Not thread-safe: one prompt, one thread.
     */
    public final class PromptWalk implements TokenRuns {
        private final TokenBlocks.Chain chain;
        private final ExactKvIndex.Walk walk;
        private boolean open = true;

        private PromptWalk(TokenBlocks.Chain chain, ExactKvIndex.Walk walk) {
            this.chain = chain;
            this.walk = walk;
        }

        @Override
        public boolean accept(int[] ids) {
            long[] hashes = chain.add(ids);
            if (!open || hashes.length == 0) {
                return open;
            }
            lock.lock();
            try {
                for (int k = 0; k < hashes.length && open; k++) {
                    open = walk.advance(hashes[k]);
                }
            } finally {
                lock.unlock();
            }
            return open;
        }

        /** The tokens taken so far. */
        public long tokens() {
            return chain.tokens();
        }

        /** The overlay of the workers exact now, for a prompt of {@code promptTokens} (counted or estimated). */
        public ExactOverlay overlay(int promptTokens) {
            ExactMatch match;
            lock.lock();
            try {
                match = walk.match();
            } finally {
                lock.unlock();
            }
            Map<String, Integer> cached = new HashMap<>();
            for (String worker : exactWorkers) {
                cached.put(worker, Math.min(match.tokens(worker), promptTokens));
            }
            return new ExactOverlay(promptTokens, cached);
        }
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
