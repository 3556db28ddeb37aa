package dev.homing.sim.model;

import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.Medium;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The engine's KV cache: a radix tree of token sequences whose KV is kept, in a pool of {@code capacity} token slots
 * shared with the running requests.
 *
 * <p><b>Layout.</b> Each node holds an edge of tokens; a path from the root spells a cached prefix. Edges are whole
 * pages of {@code pageSize} tokens, children are keyed by their first page, and a prefix is matched and inserted in
 * whole pages only, as a paged radix-attention engine does. A partial match splits the edge so that a node boundary
 * falls exactly where the match ends.
 *
 * <p><b>Pool.</b> Slots are in the tree ({@link Occupancy#cachedTokens()}) or held privately by requests
 * ({@link Occupancy#privateTokens()}: reserved for tokens not yet in the tree). {@link #commit} moves a request's
 * private tokens into the tree; tokens already present are freed, so one prefix is never stored twice.
 *
 * <p><b>References and eviction.</b> A running request locks the node ending its cached prefix, which pins the whole
 * path to the root. Unlocked leaves are evicted in least-recently-used order (an access counter, not a clock), whole
 * edges at a time, until enough slots are free; a parent whose last child goes becomes an eviction candidate in turn.
 * Locked nodes are never evicted.
 *
 * <p>Invariants: {@code cachedTokens + privateTokens <= capacity}; a node's lock count is the number of locks held on
 * it or its descendants; exactly the unlocked leaves are in {@code evictable}. Each public method leaves them true:
 * {@link #reserve} refuses what cannot fit, and tree slots are freed only by eviction, which never takes a locked
 * node; {@code KvCacheAgainstNaiveModelTest} checks them against a naive model step by step. Not thread-safe: one
 * engine owns it.
 *
 * <p><b>Events.</b> Once {@link #publishTo} names a sink, the cache tells it every change as SGLang's radix cache
 * does: a new edge as one {@link KvEvent.BlockStored} of its pages (each page named by the engine's own chained hash,
 * kept on the node, so a split keeps every page's name), an evicted edge as a {@link KvEvent.BlockRemoved}, and a
 * flush of an idle cache as {@link KvEvent.AllBlocksCleared}. A cache without a sink hashes nothing.
 */
public final class KvCache {
    private final int capacity;
    private final int pageSize;
    private final Comparator<Node> byLastAccess =
        Comparator.<Node>comparingLong(n -> n.lastAccess).thenComparingLong(n -> n.serial);
    private final TreeSet<Node> evictable = new TreeSet<>(byLastAccess);
    private Node root = new Node(new int[0], null);
    private int cachedTokens;
    private int privateTokens;
    private int lockedTokens;
    private long accessClock;
    private long serials;
    private long evictedTokens;
    private Consumer<KvEvent> events;

    public KvCache(int capacity, int pageSize) {
        if (capacity <= 0 || pageSize <= 0) {
            throw new IllegalArgumentException("capacity and page size must be positive");
        }
        this.capacity = capacity;
        this.pageSize = pageSize;
    }

    /**
     * The pool's slots at one moment, in tokens: {@code cachedTokens} held by the tree, {@code evictableTokens} of
     * them pinned by no running request, and {@code privateTokens} reserved by requests outside the tree.
     */
    public record Occupancy(int capacity, int cachedTokens, int privateTokens, int evictableTokens) {
    }

    /** A cached prefix: {@code node} ends it, {@code length} tokens long (a multiple of the page size). */
    public record Match(Node node, int length) {
    }

    /**
     * Tells {@code sink} every change from now on, on the caller's thread; the cache must still be empty, so that
     * every page it will hold has a name.
     */
    public void publishTo(Consumer<KvEvent> sink) {
        if (cachedTokens > 0) {
            throw new IllegalStateException("events are turned on before the cache holds anything");
        }
        this.events = sink;
    }

    /** The longest cached prefix of {@code tokens[0, length)}, in whole pages; refreshes its LRU position. */
    public Match match(int[] tokens, int length) {
        Node node = root;
        int matched = 0;
        while (matched + pageSize <= length) {
            Node child = node.child(pageKey(tokens, matched));
            if (child == null) {
                break;
            }
            int common = pageFloor(commonPrefix(child.key, tokens, matched, length));
            touch(child);
            if (common < child.key.length) {
                node = split(child, common);
                matched += common;
                break;
            }
            node = child;
            matched += common;
        }
        return new Match(node, matched);
    }

    /** Pins {@code node} and its ancestors against eviction. */
    public void lock(Node node) {
        for (Node n = node; n != root; n = n.parent) {
            if (n.locks++ == 0) {
                lockedTokens += n.key.length;
                if (n.isLeaf()) {
                    removeEvictable(n);
                }
            }
        }
    }

    /** Releases one {@link #lock} of {@code node}. */
    public void unlock(Node node) {
        for (Node n = node; n != root; n = n.parent) {
            if (--n.locks == 0) {
                lockedTokens -= n.key.length;
                if (n.isLeaf()) {
                    addEvictable(n);
                }
            }
        }
    }

    /**
     * Reserves {@code tokens} private slots, evicting unlocked cache entries if needed.
     *
     * @return false, with nothing changed but possibly some eviction, when the slots cannot be found
     */
    public boolean reserve(int tokens) {
        if (tokens > freeTokens() + evictableTokens()) {
            return false;
        }
        evictUntilFree(tokens);
        privateTokens += tokens;
        return true;
    }

    /** Returns {@code tokens} private slots to the pool. */
    public void release(int tokens) {
        if (tokens < 0 || tokens > privateTokens) {
            throw new IllegalArgumentException("releasing " + tokens + " of " + privateTokens + " private tokens");
        }
        privateTokens -= tokens;
    }

    /**
     * Puts {@code tokens[0, length)} (rounded down to whole pages) into the tree for a request that has computed them,
     * holds a lock on {@code locked} (ending its first {@code lockedLength} tokens) and private slots for the rest.
     * The request's lock moves to the node returned, and its private slots for the committed tokens are released
     * (the tree owns them now, or they duplicated tokens already there).
     *
     * @return the new lock, ending the first {@link #pageFloor pageFloor(length)} tokens
     */
    public Match commit(int[] tokens, int length, Node locked, int lockedLength) {
        int aligned = pageFloor(length);
        if (aligned <= lockedLength) {
            return new Match(locked, lockedLength);
        }
        Node node = root;
        int done = 0;
        while (done < aligned) {
            Node child = node.child(pageKey(tokens, done));
            if (child == null) {
                Node leaf = new Node(Arrays.copyOfRange(tokens, done, aligned), node);
                leaf.serial = ++serials;
                leaf.lastAccess = ++accessClock;
                if (node != root && node.isLeaf() && node.locks == 0) {
                    removeEvictable(node);
                }
                node.putChild(pageKey(leaf.key, 0), leaf);
                addEvictable(leaf);
                cachedTokens += leaf.key.length;
                published(leaf);
                node = leaf;
                done = aligned;
                break;
            }
            int common = pageFloor(commonPrefix(child.key, tokens, done, aligned));
            touch(child);
            node = common < child.key.length ? split(child, common) : child;
            done += common;
        }
        int converted = aligned - lockedLength;
        privateTokens -= converted;
        lock(node);
        unlock(locked);
        return new Match(node, aligned);
    }

    /**
     * Drops every unlocked entry, as an engine's cache flush does: all of them at once when nothing runs (one
     * {@link KvEvent.AllBlocksCleared}), else each unlocked edge as it would be evicted.
     */
    public void flush() {
        if (lockedTokens == 0) {
            evictedTokens += cachedTokens;
            cachedTokens = 0;
            evictable.clear();
            root = new Node(new int[0], null);
            if (events != null) {
                events.accept(new KvEvent.AllBlocksCleared());
            }
            return;
        }
        evictUntilFree(capacity + 1);
    }

    /** Where the pool's slots are now. */
    public Occupancy occupancy() {
        return new Occupancy(capacity, cachedTokens, privateTokens, evictableTokens());
    }

    /** Tokens evicted since the cache was made. */
    public long evictedTokens() {
        return evictedTokens;
    }

    /** {@code length} rounded down to whole pages. */
    public int pageFloor(int length) {
        return length - length % pageSize;
    }

    private int freeTokens() {
        return capacity - cachedTokens - privateTokens;
    }

    /** Tree slots no running request pins. */
    private int evictableTokens() {
        return cachedTokens - lockedTokens;
    }

    private void evictUntilFree(int wanted) {
        while (freeTokens() < wanted && !evictable.isEmpty()) {
            Node leaf = evictable.pollFirst();
            leaf.evictable = false;
            Node parent = leaf.parent;
            parent.removeChild(pageKey(leaf.key, 0));
            cachedTokens -= leaf.key.length;
            evictedTokens += leaf.key.length;
            if (events != null) {
                events.accept(new KvEvent.BlockRemoved(leaf.pageHashes, Medium.GPU, 0));
            }
            if (parent != root && parent.isLeaf() && parent.locks == 0) {
                addEvictable(parent);
            }
        }
    }

    /** Splits {@code child} after {@code length} tokens; returns the new upper node, which ends that prefix. */
    private Node split(Node child, int length) {
        Node parent = child.parent;
        Node upper = new Node(Arrays.copyOfRange(child.key, 0, length), parent);
        upper.serial = ++serials;
        upper.locks = child.locks;
        upper.lastAccess = child.lastAccess;
        parent.putChild(pageKey(upper.key, 0), upper);
        child.key = Arrays.copyOfRange(child.key, length, child.key.length);
        child.parent = upper;
        if (child.pageHashes != null) {
            int pages = length / pageSize;
            upper.pageHashes = Arrays.copyOfRange(child.pageHashes, 0, pages);
            child.pageHashes = Arrays.copyOfRange(child.pageHashes, pages, child.pageHashes.length);
        }
        upper.putChild(pageKey(child.key, 0), child);
        return upper;
    }

    /** Names a new edge's pages and tells the sink; a no-op without one. */
    private void published(Node leaf) {
        if (events == null) {
            return;
        }
        Node parent = leaf.parent;
        Long parentHash = parent == root ? null : parent.pageHashes[parent.pageHashes.length - 1];
        long previous = parentHash == null ? 0 : parentHash;
        long[] hashes = new long[leaf.key.length / pageSize];
        for (int page = 0; page < hashes.length; page++) {
            long h = Mix.splitMix64(previous);
            for (int i = page * pageSize; i < (page + 1) * pageSize; i++) {
                h = Mix.splitMix64(h ^ leaf.key[i]);
            }
            hashes[page] = h;
            previous = h;
        }
        leaf.pageHashes = hashes;
        events.accept(new KvEvent.BlockStored(hashes, parentHash, leaf.key.clone(), pageSize, null, null, Medium.GPU,
            null, 0));
    }

    private void touch(Node node) {
        boolean wasEvictable = node.evictable;
        if (wasEvictable) {
            removeEvictable(node);
        }
        node.lastAccess = ++accessClock;
        if (wasEvictable) {
            addEvictable(node);
        }
    }

    private void addEvictable(Node node) {
        node.evictable = true;
        evictable.add(node);
    }

    private void removeEvictable(Node node) {
        if (node.evictable) {
            evictable.remove(node);
            node.evictable = false;
        }
    }

    private Object pageKey(int[] tokens, int from) {
        if (pageSize == 1) {
            return tokens[from];
        }
        return new PageKey(Arrays.copyOfRange(tokens, from, from + pageSize));
    }

    private static int commonPrefix(int[] key, int[] tokens, int from, int to) {
        int limit = Math.min(key.length, to - from);
        int mismatch = Arrays.mismatch(key, 0, limit, tokens, from, from + limit);
        return mismatch < 0 ? limit : mismatch;
    }

    /** The first page of an edge, as a child key. */
    private record PageKey(int[] tokens) {
        @Override
        public boolean equals(Object other) {
            return other instanceof PageKey page && Arrays.equals(tokens, page.tokens);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(tokens);
        }
    }

    /** A tree node: an edge of tokens below its parent. Opaque outside the cache. */
    public static final class Node {
        private int[] key;
        private Node parent;
        private Map<Object, Node> children;
        private int locks;
        private long lastAccess;
        private long serial;
        private boolean evictable;
        /** The engine's names of the edge's pages, in order; null while the cache publishes no events. */
        private long[] pageHashes;

        private Node(int[] key, Node parent) {
            this.key = key;
            this.parent = parent;
        }

        private boolean isLeaf() {
            return children == null || children.isEmpty();
        }

        private Node child(Object pageKey) {
            return children == null ? null : children.get(pageKey);
        }

        private void putChild(Object pageKey, Node child) {
            if (children == null) {
                children = new HashMap<>(4);
            }
            children.put(pageKey, child);
        }

        private void removeChild(Object pageKey) {
            children.remove(pageKey);
        }
    }
}
