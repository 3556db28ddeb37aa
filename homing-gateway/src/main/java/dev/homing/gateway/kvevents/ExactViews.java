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
import java.util.OptionalLong;
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
        /** The last blocks hashed, kept for {@link #unheldBlock}: more than a margin of 128 tokens covers. */
        private static final int LAST_BLOCKS = 16;
        private final TokenBlocks.Chain chain;
        private final ExactKvIndex.Walk walk;
        private boolean open = true;
        /** The last {@link #LAST_BLOCKS} blocks hashed, by their index modulo that; and how many were hashed. */
        private final long[] lastHashes = new long[LAST_BLOCKS];
        private int hashedBlocks;
        /** The index of the first block no engine held; -1 while every block walked was held somewhere. */
        private int firstUnheld = -1;

        private PromptWalk(TokenBlocks.Chain chain, ExactKvIndex.Walk walk) {
            this.chain = chain;
            this.walk = walk;
        }

        @Override
        public boolean accept(int[] ids) {
            long[] hashes = chain.add(ids);
            int first = hashedBlocks;
            for (long hash : hashes) {
                lastHashes[hashedBlocks++ % LAST_BLOCKS] = hash;
            }
            if (!open || hashes.length == 0) {
                return open;
            }
            lock.lock();
            try {
                for (int k = 0; k < hashes.length && open; k++) {
                    open = walk.advance(hashes[k]);
                    if (!open) {
                        firstUnheld = first + k;
                    }
                }
            } finally {
                lock.unlock();
            }
            return open;
        }

        /**
         * The deepest block hashed that no engine held (the first such one, or one after it) and that ends at least
         * {@code marginTokens} before {@code endTokens}, if any. An engine that prefills the prompt stores its whole
         * pages: a margin of its largest page keeps the block off the last, partial one.
         */
        public OptionalLong unheldBlock(long endTokens, int marginTokens) {
            int blockTokens = index.blocks().blockTokens();
            long lastWhole = (endTokens - marginTokens) / blockTokens - 1;
            long deepest = Math.min(hashedBlocks - 1, lastWhole);
            if (firstUnheld < 0 || deepest < firstUnheld || deepest < hashedBlocks - LAST_BLOCKS) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(lastHashes[(int) (deepest % LAST_BLOCKS)]);
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

    /** Whether {@code worker}'s engine holds the gateway's own block {@code ownHash} now. */
    boolean holds(String worker, long ownHash) {
        lock.lock();
        try {
            return index.holds(worker, ownHash);
        } finally {
            lock.unlock();
        }
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
