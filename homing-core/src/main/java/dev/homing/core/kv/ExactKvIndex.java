package dev.homing.core.kv;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which token prefixes every worker's engine holds on GPU, built from the engines' own KV events: the exact view,
 * beside the character tree's guess.
 *
 * <p>Design. An engine names its blocks with hashes the gateway cannot reproduce, in blocks of its own size (vLLM
 * 16 tokens by default, SGLang one token a page). The index re-hashes every stored block's {@code token_ids} into
 * the gateway's {@link TokenBlocks} (fixed size, chained, seeded by the {@link KvNamespace}), regrouping tokens
 * across engine blocks by following each store's parent: an engine block records the chain state after its tokens
 * (the last whole own block's hash and the tokens since, fewer than a block) so a child continues from it. The
 * engine's hash is kept only as a handle: it maps to the own blocks that were completed inside that engine block,
 * which a removal of it takes away. A lookup then walks a request's own hashes once for every worker at once.
 *
 * <p>Invariants:
 * <ul>
 *   <li>A worker holds an own block exactly while at least one of its recorded engine blocks completed it (counted
 *       per worker), and {@code holders} lists a worker under an own block exactly then.
 *   <li>An own block is attached to the engine block its last token is in. Engines evict from the leaves (SGLang's
 *       radix cache, vLLM's free queue in reverse order), so the engine block completing an own block goes no later
 *       than those before it; a lookup stops at the first own block missing anyway.
 *   <li>At most {@code maxEngineBlocks} engine blocks are recorded over all workers; a store past it is refused and
 *       counted ({@link Outcome#REFUSED_FULL}), never half-recorded out of order: the blocks stored before the refused
 *       one stay, as a prefix.
 *   <li>Only GPU blocks of the first KV cache group are indexed; others are counted and ignored.
 * </ul>
 * Joining a stream late misses only stores (removals of blocks never seen are counted and harmless), so what the
 * index says is held is held; stores whose parent it never saw are counted as orphans.
 *
 * <p>Not thread-safe: one thread applies events and answers lookups (the caller confines it or publishes copies).
 */
public final class ExactKvIndex {

    /** What became of one event. */
    public enum Outcome {
        /** Recorded. */
        APPLIED,
        /** Not a GPU block of the first group: not indexed. */
        IGNORED,
        /** A store after a block the view does not hold: nothing recorded. */
        ORPHAN,
        /** The index is full: the store (or its tail) was not recorded, so the worker's view is short of it. */
        REFUSED_FULL
    }

    // Heap estimates on a 64-bit JVM with compressed references: a HashMap entry (node 32 B, boxed Long key 16 B,
    // its share of the table ~8 B), plus the value.
    /** An engine block's entry: map entry 56 B, the record 32 B, its two arrays' headers 32 B. */
    static final int ENGINE_BLOCK_BYTES = 120;
    /** A worker's count of one own block: map entry 56 B (small Integers are cached). */
    static final int HELD_BLOCK_BYTES = 56;
    /** An own block's holders: map entry 56 B and an int array's header 16 B (its slots counted apart). */
    static final int DISTINCT_BLOCK_BYTES = 72;

    private static final int[] NO_TOKENS = {};
    private static final long[] NO_BLOCKS = {};
    private static final int[] NOBODY = {};

    /** The chain state after an engine block's tokens, and the own blocks its tokens completed. */
    private record EngineBlock(long chain, int[] tail, long[] completed) {
    }

    /** One worker's view: its engine blocks by engine hash, and how many of them completed each own block. */
    private static final class WorkerView {
        final int slot;
        final Map<Long, EngineBlock> engineBlocks = new HashMap<>();
        final Map<Long, Integer> ownCounts = new HashMap<>();

        WorkerView(int slot) {
            this.slot = slot;
        }
    }

    private final TokenBlocks blocks;
    private final long maxEngineBlocks;
    private final Map<String, WorkerView> workers = new HashMap<>();
    /** Worker ids by slot; a slot is never reused. */
    private final List<String> slots = new ArrayList<>();
    /** Own block hash to the slots of the workers holding it, never empty. */
    private final Map<Long, int[]> holders = new HashMap<>();

    private long engineBlocks;
    /** Bytes of the engine blocks' tails and completed lists. */
    private long engineArrayBytes;
    private long heldBlocks;
    private long holderSlots;
    private long refusedBlocks;
    private long orphanStores;
    private long unknownRemovals;
    private long ignoredEvents;

    public ExactKvIndex(TokenBlocks blocks, long maxEngineBlocks) {
        if (maxEngineBlocks <= 0) {
            throw new IllegalArgumentException("the index holds at least one block, got " + maxEngineBlocks);
        }
        this.blocks = blocks;
        this.maxEngineBlocks = maxEngineBlocks;
    }

    public TokenBlocks blocks() {
        return blocks;
    }

    /** Applies one event of {@code worker}'s stream, in the stream's order. */
    public Outcome apply(String worker, KvEvent event) {
        WorkerView view = workers.computeIfAbsent(worker, this::newView);
        return switch (event) {
            case KvEvent.BlockStored stored -> store(view, stored);
            case KvEvent.BlockRemoved removed -> remove(view, removed);
            case KvEvent.AllBlocksCleared cleared -> {
                clear(view);
                yield Outcome.APPLIED;
            }
        };
    }

    /** Forgets all {@code worker} holds: its engine's cache was cleared, or its view is to be rebuilt. */
    public void clear(String worker) {
        WorkerView view = workers.get(worker);
        if (view != null) {
            clear(view);
        }
    }

    /** Forgets {@code worker} altogether (it left the fleet). */
    public void remove(String worker) {
        WorkerView view = workers.remove(worker);
        if (view != null) {
            clear(view);
        }
    }

    /** The leading whole blocks of {@code tokens} that each worker holds on GPU. */
    public ExactMatch match(int[] tokens, KvNamespace namespace) {
        return match(blocks.hashes(tokens, namespace));
    }

    /** As {@link #match(int[], KvNamespace)}, from the sequence's own block hashes ({@link TokenBlocks#hashes}). */
    public ExactMatch match(long[] ownHashes) {
        Walk walk = walk();
        int k = 0;
        while (k < ownHashes.length && walk.advance(ownHashes[k])) {
            k++;
        }
        return walk.match();
    }

    /** A walk down a sequence's own blocks given one at a time ({@link Walk}). */
    public Walk walk() {
        return new Walk();
    }

    /**
     * A match taken a block at a time, for a caller that computes the blocks as it goes and stops computing when no
     * worker holds the last one. Steps must be confined as the index is (the caller's lock); between steps the index
     * may change, and the walk then mixes what it held before and after, as a lookup an instant later would.
     */
    public final class Walk {
        private final Map<String, Integer> ended = new HashMap<>();
        private int[] alive;
        private int depth;

        private Walk() {
        }

        /** Goes one block deeper; returns whether some worker still holds every block so far. */
        public boolean advance(long ownHash) {
            int[] next = holders.getOrDefault(ownHash, NOBODY);
            if (depth == 0) {
                alive = next.clone();
            } else {
                int[] survivors = new int[Math.min(alive.length, next.length)];
                int kept = 0;
                for (int slot : alive) {
                    if (contains(next, slot)) {
                        survivors[kept++] = slot;
                    } else {
                        ended.put(slots.get(slot), depth);
                    }
                }
                alive = Arrays.copyOf(survivors, kept);
            }
            depth++;
            return alive.length > 0;
        }

        /** The leading blocks each worker holds, of those walked. */
        public ExactMatch match() {
            Map<String, Integer> held = new HashMap<>(ended);
            for (int slot : alive == null ? NOBODY : alive) {
                held.put(slots.get(slot), depth);
            }
            return new ExactMatch(blocks.blockTokens(), held);
        }
    }

    /** Whether {@code worker} holds the gateway's own block {@code ownHash}. */
    public boolean holds(String worker, long ownHash) {
        WorkerView view = workers.get(worker);
        return view != null && contains(holders.getOrDefault(ownHash, NOBODY), view.slot);
    }

    /** The gateway's own blocks {@code worker} holds. */
    public int heldBlocks(String worker) {
        WorkerView view = workers.get(worker);
        return view == null ? 0 : view.ownCounts.size();
    }

    public KvIndexStats stats() {
        long distinct = holders.size();
        long bytes = engineBlocks * ENGINE_BLOCK_BYTES + engineArrayBytes + heldBlocks * HELD_BLOCK_BYTES
                + distinct * DISTINCT_BLOCK_BYTES + holderSlots * Integer.BYTES;
        return new KvIndexStats(workers.size(), engineBlocks, heldBlocks, distinct, bytes, refusedBlocks,
                orphanStores, unknownRemovals, ignoredEvents);
    }

    private WorkerView newView(String worker) {
        slots.add(worker);
        return new WorkerView(slots.size() - 1);
    }

    private Outcome store(WorkerView view, KvEvent.BlockStored stored) {
        if (!indexed(stored.medium(), stored.groupIdx())) {
            ignoredEvents++;
            return Outcome.IGNORED;
        }
        long chain;
        int[] tail;
        if (stored.parentHash() == null) {
            chain = stored.namespace().root();
            tail = NO_TOKENS;
        } else {
            EngineBlock parent = view.engineBlocks.get(stored.parentHash());
            if (parent == null) {
                orphanStores++;
                return Outcome.ORPHAN;
            }
            chain = parent.chain();
            tail = parent.tail();
        }
        int blockTokens = blocks.blockTokens();
        int[] pending = Arrays.copyOf(tail, blockTokens);
        int[] scratch = blocks.scratch();
        int filled = tail.length;
        long[] hashes = stored.blockHashes();
        int[] tokens = stored.tokenIds();
        int size = stored.blockSize();
        for (int i = 0; i < hashes.length; i++) {
            EngineBlock stale = view.engineBlocks.get(hashes[i]);
            if (stale != null) {
                // Stored again (a re-emitted or recomputed block): the new record replaces the old one.
                drop(view, hashes[i], stale);
            }
            if (engineBlocks >= maxEngineBlocks) {
                refusedBlocks += hashes.length - i;
                return Outcome.REFUSED_FULL;
            }
            long[] completed = NO_BLOCKS;
            int completedCount = 0;
            for (int t = i * size; t < (i + 1) * size; t++) {
                pending[filled++] = tokens[t];
                if (filled == blockTokens) {
                    chain = blocks.next(chain, pending, 0, scratch);
                    if (completedCount == completed.length) {
                        completed = Arrays.copyOf(completed, Math.max(1, completedCount * 2));
                    }
                    completed[completedCount++] = chain;
                    filled = 0;
                }
            }
            EngineBlock block = new EngineBlock(chain, filled == 0 ? NO_TOKENS : Arrays.copyOf(pending, filled),
                    completedCount == completed.length ? completed : Arrays.copyOf(completed, completedCount));
            view.engineBlocks.put(hashes[i], block);
            engineBlocks++;
            engineArrayBytes += arrayBytes(block);
            for (long own : block.completed()) {
                hold(view, own);
            }
        }
        return Outcome.APPLIED;
    }

    private Outcome remove(WorkerView view, KvEvent.BlockRemoved removed) {
        if (!indexed(removed.medium(), removed.groupIdx())) {
            ignoredEvents++;
            return Outcome.IGNORED;
        }
        for (long hash : removed.blockHashes()) {
            EngineBlock block = view.engineBlocks.get(hash);
            if (block == null) {
                unknownRemovals++;
            } else {
                drop(view, hash, block);
            }
        }
        return Outcome.APPLIED;
    }

    private static boolean indexed(Medium medium, int groupIdx) {
        return medium == Medium.GPU && groupIdx == 0;
    }

    private void drop(WorkerView view, long hash, EngineBlock block) {
        view.engineBlocks.remove(hash);
        engineBlocks--;
        engineArrayBytes -= arrayBytes(block);
        for (long own : block.completed()) {
            release(view, own);
        }
    }

    private void clear(WorkerView view) {
        for (EngineBlock block : view.engineBlocks.values()) {
            engineArrayBytes -= arrayBytes(block);
        }
        engineBlocks -= view.engineBlocks.size();
        view.engineBlocks.clear();
        for (Long own : view.ownCounts.keySet()) {
            removeHolder(own, view.slot);
        }
        heldBlocks -= view.ownCounts.size();
        view.ownCounts.clear();
    }

    private void hold(WorkerView view, long own) {
        if (view.ownCounts.merge(own, 1, Integer::sum) == 1) {
            heldBlocks++;
            int[] now = holders.getOrDefault(own, NOBODY);
            int[] grown = Arrays.copyOf(now, now.length + 1);
            grown[now.length] = view.slot;
            holders.put(own, grown);
            holderSlots++;
        }
    }

    private void release(WorkerView view, long own) {
        Integer count = view.ownCounts.get(own);
        if (count == null) {
            throw new IllegalStateException("worker " + slots.get(view.slot) + " releases an own block it never held");
        }
        if (count > 1) {
            view.ownCounts.put(own, count - 1);
            return;
        }
        view.ownCounts.remove(own);
        heldBlocks--;
        removeHolder(own, view.slot);
    }

    private void removeHolder(long own, int slot) {
        int[] now = holders.get(own);
        int at = indexOf(now, slot);
        if (at < 0) {
            throw new IllegalStateException("own block " + own + " does not list worker " + slots.get(slot));
        }
        holderSlots--;
        if (now.length == 1) {
            holders.remove(own);
            return;
        }
        int[] shrunk = new int[now.length - 1];
        System.arraycopy(now, 0, shrunk, 0, at);
        System.arraycopy(now, at + 1, shrunk, at, now.length - at - 1);
        holders.put(own, shrunk);
    }

    private static long arrayBytes(EngineBlock block) {
        return (long) block.tail().length * Integer.BYTES + (long) block.completed().length * Long.BYTES;
    }

    private static boolean contains(int[] slots, int slot) {
        return indexOf(slots, slot) >= 0;
    }

    private static int indexOf(int[] slots, int slot) {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] == slot) {
                return i;
            }
        }
        return -1;
    }
}
