package dev.homing.core.replica;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * What other gateway replicas of one model placed and this replica's tree has not learnt yet: block hashes
 * ({@link BlockChain}) to the workers that were sent the text up to that block, each with its predecessor's hash.
 * A later request whose text has those blocks claims them ({@link #claim}): its replica's tree learns the prefix as
 * text, and the entries let go of those workers, since the tree now holds them and ages them as its own.
 *
 * <p>Invariants: at most {@code maxEntries} entries, the least recently added or claimed evicted first; every entry
 * names at least one worker (one that loses its last is removed); a worker appears once in an entry.
 *
 * <p>Thread-safe: every method is synchronized (events arrive on the bus's thread, claims on the deciding threads);
 * none calls out while holding the lock.
 */
final class RemoteBlocks {

    private static final String[] NONE = new String[0];

    private final int maxEntries;
    private final LinkedHashMap<Long, Block> entries;

    private static final class Block {
        final long parent;
        String[] workers = NONE;

        Block(long parent) {
            this.parent = parent;
        }

        boolean holds(String worker) {
            for (String w : workers) {
                if (w.equals(worker)) {
                    return true;
                }
            }
            return false;
        }

        void add(String worker) {
            if (!holds(worker)) {
                workers = Arrays.copyOf(workers, workers.length + 1);
                workers[workers.length - 1] = worker;
            }
        }

        /** Returns whether the entry is left with no worker. */
        boolean remove(String worker) {
            for (int i = 0; i < workers.length; i++) {
                if (workers[i].equals(worker)) {
                    String[] rest = new String[workers.length - 1];
                    System.arraycopy(workers, 0, rest, 0, i);
                    System.arraycopy(workers, i + 1, rest, i, rest.length - i);
                    workers = rest;
                    break;
                }
            }
            return workers.length == 0;
        }
    }

    RemoteBlocks(int maxEntries) {
        this.maxEntries = Math.max(1, maxEntries);
        this.entries = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Block> eldest) {
                return size() > RemoteBlocks.this.maxEntries;
            }
        };
    }

    synchronized boolean isEmpty() {
        return entries.isEmpty();
    }

    synchronized int size() {
        return entries.size();
    }

    /** {@code worker} holds the chain {@code blocks}, the first after {@code parent}. */
    synchronized void add(String worker, long parent, long[] blocks) {
        long previous = parent;
        for (long hash : blocks) {
            long p = previous;
            entries.computeIfAbsent(hash, h -> new Block(p)).add(worker);
            previous = hash;
        }
    }

    /** {@code workers} hold the block {@code hash} after {@code parent} (a snapshot's entry). */
    synchronized void add(List<String> workers, long parent, long hash) {
        Block entry = entries.computeIfAbsent(hash, h -> new Block(parent));
        workers.forEach(entry::add);
    }

    /**
     * The workers a text of block hashes {@code hashes} is known to reach further than the tree says, with how many
     * whole blocks each reaches; they are let go of those blocks. A worker reaches block {@code k} when it holds every
     * block up to {@code k}, here or (first {@code treeBlocks} of them) in the tree.
     *
     * @param treeBlocks    whole blocks of the text the tree says a worker holds
     * @param maxTreeBlocks the most whole blocks the tree says any worker holds
     */
    synchronized Map<String, Integer> claim(long[] hashes, ToIntFunction<String> treeBlocks, int maxTreeBlocks) {
        Block[] found = new Block[hashes.length];
        Set<String> seen = new HashSet<>();
        int reached = 0;
        for (int k = 0; k < hashes.length; k++) {
            Block entry = entries.get(hashes[k]);
            if (entry == null && k >= maxTreeBlocks) {
                break;
            }
            found[k] = entry;
            reached = k + 1;
            if (entry != null) {
                seen.addAll(Arrays.asList(entry.workers));
            }
        }
        Map<String, Integer> claimed = new HashMap<>();
        for (String worker : seen) {
            int inTree = treeBlocks.applyAsInt(worker);
            int blocks = 0;
            while (blocks < reached && (blocks < inTree || found[blocks] != null && found[blocks].holds(worker))) {
                blocks++;
            }
            if (blocks > inTree) {
                claimed.put(worker, blocks);
                for (int k = 0; k < blocks; k++) {
                    if (found[k] != null && found[k].remove(worker)) {
                        entries.remove(hashes[k]);
                    }
                }
            }
        }
        return claimed;
    }

    /**
     * {@code worker} holds nothing below the block {@code anchor} ({@link BlockChain#ROOT}: below nothing) but the
     * chain {@code keptPath}: it is let go of every other entry that descends from the anchor.
     */
    synchronized void trim(String worker, long anchor, long[] keptPath) {
        Set<Long> kept = new HashSet<>();
        kept.add(anchor);
        for (long hash : keptPath) {
            kept.add(hash);
        }
        Map<Long, Boolean> below = new HashMap<>();
        below.put(anchor, true);
        // A copy to follow parents in: a lookup in the access-ordered map would count as a use.
        Map<Long, Block> all = new HashMap<>(entries);
        for (Map.Entry<Long, Block> e : all.entrySet()) {
            if (!kept.contains(e.getKey()) && e.getValue().holds(worker) && descends(e.getKey(), all, below)
                    && e.getValue().remove(worker)) {
                entries.remove(e.getKey());
            }
        }
    }

    /** Whether the chain through {@code hash} passes a hash {@code below} marks true; unknown links end it (false). */
    private static boolean descends(long hash, Map<Long, Block> all, Map<Long, Boolean> below) {
        List<Long> path = new ArrayList<>();
        long at = hash;
        Boolean known = null;
        // Bounded: each step moves to an entry's parent, and a chain of n entries has at most n links.
        for (int steps = 0; steps <= all.size() && (known = below.get(at)) == null; steps++) {
            path.add(at);
            Block entry = all.get(at);
            if (entry == null) {
                known = false; // the root, or a link this index no longer holds: not known to be below
                break;
            }
            at = entry.parent;
        }
        boolean result = Boolean.TRUE.equals(known);
        for (Long h : path) {
            below.put(h, result);
        }
        return result;
    }

    /** {@code worker} left the model. */
    synchronized void removeWorker(String worker) {
        Iterator<Block> it = entries.values().iterator();
        while (it.hasNext()) {
            if (it.next().remove(worker)) {
                it.remove();
            }
        }
    }

    /** Every entry, as snapshot events of {@code model}. */
    synchronized List<ReplicaEvent.Held> snapshot(String model) {
        List<ReplicaEvent.Held> held = new ArrayList<>(entries.size());
        entries.forEach((hash, entry) -> held.add(new ReplicaEvent.Held(model, entry.parent, hash,
                List.of(entry.workers))));
        return held;
    }
}
