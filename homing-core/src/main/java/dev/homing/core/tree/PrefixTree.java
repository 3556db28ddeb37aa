package dev.homing.core.tree;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * An approximate, multi-tenant radix tree over the characters of request texts: which workers were sent which
 * prompt prefixes, so a request can go where its prefix is probably still cached. One tree per model.
 *
 * <h2>Structure and invariants</h2>
 * Edges hold text as strings (one byte a character when it fits Latin-1, see {@link EdgeText}); siblings start
 * with distinct code points. Each node lists its tenants (workers that inserted a text through it) with a last-access
 * stamp from a logical clock. Invariants, kept by insert, eviction and tenant removal (all under the write lock) and
 * checked by the tests ({@code checkInvariants()}) after every randomized step:
 * <ul>
 *   <li>a tenant at a node is at its parent (the root implicitly holds everyone and stores nothing);</li>
 *   <li>every node but the root has at least one tenant, so a node that loses its last tenant is removed;</li>
 *   <li>{@code storedChars} is the sum of edge lengths over all nodes, each node counted once whatever its tenants;
 *       a tenant's count is the sum over the nodes that hold it.</li>
 * </ul>
 *
 * <h2>Characters</h2>
 * Lengths count UTF-16 units ({@code String.length()}), so a request's character count needs no scan. A match, a
 * split or a count never ends between the two halves of a surrogate pair: match lengths are moved back to the pair's
 * start and siblings are keyed by code point, so an emoji round-trips through split edges intact. For text without
 * astral characters this is the same count as the reference gateway's "chars" (code points).
 *
 * <h2>Capacity and eviction</h2>
 * Unlike the reference gateway, whose budget is per worker (so a model's tree grows with its worker count),
 * {@code maxChars} caps the whole tree. {@link #evict()} (run in the background by the policy's
 * {@code maintain()}) brings it down to the cap. An insert that takes the tree more than {@link #BURST_MARGIN} above
 * the cap evicts at once, down to the cap, so memory stays bounded between cycles whatever the burst.
 * Eviction takes (node, tenant) pairs where no child of the node holds the tenant, oldest stamp first across all
 * tenants; removing a pair frees characters only when the node loses its last tenant, and a parent that thereby
 * becomes a leaf for the tenant joins the queue. Every insert stamps the whole path it walked for its tenant, so a
 * parent is never older than its children and the most recent inserts survive longest.
 *
 * <h2>Costs</h2>
 * A match is one vectorised comparison over the matched text plus a binary search among the children of each node
 * it passes; nothing on the request path grows with the number of workers (tenants are found by binary search in a
 * node's sorted handles) unless the caller lists a node's tenants. Eviction walks the whole tree under the write
 * lock: a few milliseconds for ten million characters in ten thousand nodes.
 *
 * <h2>Thread-safety</h2>
 * Thread-safe. One {@link ReentrantReadWriteLock} per tree: {@link #match} walks under the read lock and writes
 * nothing (recency is refreshed by the insert every routing decision makes); inserts, {@link #matchAndInsert},
 * eviction and tenant removal take the write lock. The request text is compared where it lies, never copied, and
 * only the part a worker did not hold yet is stored.
 * {@link PrefixMatch} results are snapshots that stay valid after the lock is released.
 *
 * <h2>Replicas</h2>
 * With a {@link TreeSync} set (several gateway replicas), a decision first lets it teach the tree what other replicas
 * placed ({@link #learn}, which tells nothing back), and every insert and trim a decision makes is told to it after
 * the lock is released. Without one nothing of this runs.
 */
public final class PrefixTree {

    /**
     * How far above the cap an insert may take the tree before it evicts on the spot. Each such eviction walks the
     * whole tree, and at least {@code margin x cap} characters must have been inserted since the last one, so its
     * cost spread over those characters stays a small constant; 10% bounds memory at 1.1x the cap.
     */
    public static final double BURST_MARGIN = 0.10;

    private final long maxChars;
    private final long burstLimit;
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Told of every insert and trim a decision makes, after the lock is released; null for a gateway alone. */
    private volatile TreeSync sync;

    // All below guarded by lock (written under the write lock).
    private final Node root = new Node(null, "", Node.NO_TENANTS);
    private TenantRegistry registry = TenantRegistry.EMPTY;
    private long[] tenantChars = new long[0];
    private long storedChars;
    private int nodeCount;
    private long clock;
    private long evictedChars;

    /** @param maxChars characters the whole tree may hold (0 or less: nothing is kept past an insert) */
    public PrefixTree(long maxChars) {
        this.maxChars = Math.max(0, maxChars);
        this.burstLimit = this.maxChars + (long) Math.ceil(this.maxChars * BURST_MARGIN);
    }

    public long maxChars() {
        return maxChars;
    }

    /** What the tree holds of {@code text}; changes nothing. */
    public PrefixMatch match(String text) {
        lock.readLock().lock();
        try {
            return walk(text).toMatch(text.length(), registry);
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * Records that {@code tenant} was sent {@code text}.
     *
     * @return how many leading characters of the text the tenant already held
     */
    public int insert(String text, String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        int held;
        lock.writeLock().lock();
        try {
            held = insertAlong(walk(text), text, tenant);
        } finally {
            lock.writeLock().unlock();
        }
        tellInserted(text, held, tenant);
        return held;
    }

    /**
     * Records that {@code tenant} holds the first {@code chars} characters of {@code text}, learnt from elsewhere
     * (another gateway replica's decision): the {@link TreeSync} is not told, since it was not this tree's decision.
     */
    public void learn(String text, int chars, String tenant) {
        Objects.requireNonNull(tenant, "tenant");
        String prefix = chars >= text.length() ? text : text.substring(0, chars);
        lock.writeLock().lock();
        try {
            insertAlong(walk(prefix), prefix, tenant);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Keeps this tree in step with other gateway replicas' through {@code sync} from now on. */
    public void sync(TreeSync sync) {
        this.sync = sync;
    }

    /**
     * Matches {@code text}, lets {@code chooser} decide from the match, then inserts the text for the tenant the
     * decision names, in one walk of the text under one lock hold (no other decision can interleave).
     *
     * @param chooser  runs under the tree's write lock: keep it short and never call back into this tree
     * @param tenantOf the worker to insert the text for, from the decision; null (or a null decision) inserts nothing
     * @return the chooser's decision
     */
    public <D> D matchAndInsert(String text, Function<? super PrefixMatch, ? extends D> chooser,
            Function<? super D, String> tenantOf) {
        TreeSync replicas = sync;
        if (replicas != null) {
            replicas.beforeMatch(this, text);
        }
        D decision;
        String tenant;
        int held = 0;
        lock.writeLock().lock();
        try {
            Walk walk = walk(text);
            decision = chooser.apply(walk.toMatch(text.length(), registry));
            tenant = decision == null ? null : tenantOf.apply(decision);
            if (tenant != null) {
                held = insertAlong(walk, text, tenant);
            }
        } finally {
            lock.writeLock().unlock();
        }
        if (tenant != null) {
            tellInserted(text, held, tenant);
        }
        return decision;
    }

    private void tellInserted(String text, int held, String tenant) {
        TreeSync told = sync;
        if (told != null) {
            told.inserted(text, held, tenant);
        }
    }

    /** Forgets everything {@code tenant} inserted; nodes no other tenant holds are freed. */
    public void removeTenant(String tenant) {
        lock.writeLock().lock();
        try {
            int handle = registry.handleOf(tenant);
            if (handle < 0) {
                return;
            }
            dropBelow(root, handle);
            tenantChars[handle] = 0;
            registry = registry.without(tenant);
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * The worker behind {@code tenant} served {@code text} holding only its first {@code keptChars} characters: it
     * evicted the rest since it was sent them. An engine evicts deepest first, so every other branch the tenant was
     * believed to hold below that point went with it: those are forgotten. The text's own path is kept, because the
     * engine has just computed it again and holds it now.
     *
     * @return characters the tenant no longer holds
     */
    public long forgetBranchesBelow(String text, int keptChars, String tenant) {
        long forgotten = forgetBranches(text, keptChars, tenant);
        TreeSync told = sync;
        if (told != null) {
            told.trimmed(text, keptChars, tenant);
        }
        return forgotten;
    }

    /** {@link #forgetBranchesBelow} without telling the {@link TreeSync}: a trim learnt from another gateway replica. */
    public long forgetBranches(String text, int keptChars, String tenant) {
        lock.writeLock().lock();
        try {
            int handle = registry.handleOf(tenant);
            if (handle < 0) {
                return 0;
            }
            long before = tenantChars[handle];
            Walk walk = walk(text);
            for (int i = 0; i < walk.size; i++) {
                Node node = walk.nodes[i];
                if (walk.ends[i] <= keptChars || !node.holds(handle)) {
                    continue;
                }
                Node onPath = i + 1 < walk.size ? walk.nodes[i + 1] : null;
                for (Node child : node.children.clone()) {
                    if (child != onPath && child.holds(handle)) {
                        dropSubtree(child, handle);
                    }
                }
            }
            return before - tenantChars[handle];
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Evicts least recently used leaves of every tenant above its own budget until it is within it; tenants within
     * budget keep all they hold. Frees characters only where a node loses its last tenant.
     *
     * @param budget characters a tenant may hold, by worker id (a worker's cache size in characters)
     */
    public void evictTenantsAbove(ToLongFunction<String> budget) {
        lock.writeLock().lock();
        try {
            long[] limits = new long[registry.handleLimit()];
            boolean over = false;
            for (int h = 0; h < limits.length; h++) {
                String name = registry.nameOf(h);
                limits[h] = name == null ? Long.MAX_VALUE : budget.applyAsLong(name);
                over |= tenantChars[h] > limits[h];
            }
            if (!over) {
                return;
            }
            PriorityQueue<Evictable> queue = new PriorityQueue<>(Comparator.comparingLong(Evictable::stamp));
            collectLeaves(queue);
            while (!queue.isEmpty()) {
                Evictable oldest = queue.poll();
                if (tenantChars[oldest.handle()] > limits[oldest.handle()]) {
                    queue.addAll(evictPair(oldest));
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Evicts least recently used leaves until the tree is within {@link #maxChars()}. */
    public void evict() {
        lock.writeLock().lock();
        try {
            evictToCap();
        } finally {
            lock.writeLock().unlock();
        }
    }

    public TreeStats stats() {
        lock.readLock().lock();
        try {
            return new TreeStats(storedChars, nodeCount, registry.size(), evictedChars);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Characters held by {@code tenant} (its nodes' edge lengths; shared nodes count for each holder). */
    public long tenantChars(String tenant) {
        lock.readLock().lock();
        try {
            int handle = registry.handleOf(tenant);
            return handle < 0 ? 0 : tenantChars[handle];
        } finally {
            lock.readLock().unlock();
        }
    }

    /** One block of a path through the tree, as {@link #visitBlocks} sees it. */
    public interface BlockVisitor {
        /**
         * The {@code block}-th block of {@code blockChars} characters of {@code path} (the root-to-here text, valid
         * only during the call), held through its last character by {@code tenants}. Blocks of a path come in order,
         * and a block's predecessor on its path was the last block visited at index {@code block - 1}.
         */
        void block(CharSequence path, int block, List<String> tenants);
    }

    /**
     * Walks every root-to-leaf path once, depth first, under the read lock, showing each whole block of
     * {@code blockChars} characters with the tenants holding it: what a gateway replica that starts late is sent.
     */
    public void visitBlocks(int blockChars, BlockVisitor visitor) {
        lock.readLock().lock();
        try {
            StringBuilder path = new StringBuilder();
            ArrayDeque<Node> nodes = new ArrayDeque<>();
            ArrayDeque<Integer> starts = new ArrayDeque<>();
            for (Node child : root.children) {
                nodes.push(child);
                starts.push(0);
            }
            while (!nodes.isEmpty()) {
                Node node = nodes.pop();
                int start = starts.pop();
                path.setLength(start);
                path.append(node.edge);
                int end = path.length();
                List<String> tenants = null;
                for (int block = start / blockChars; (block + 1) * blockChars <= end; block++) {
                    if ((block + 1) * blockChars > start) {
                        if (tenants == null) {
                            tenants = new ArrayList<>(node.tenants.length);
                            for (long slot : node.tenants) {
                                tenants.add(registry.nameOf(Node.handle(slot)));
                            }
                        }
                        visitor.block(path, block, tenants);
                    }
                }
                for (Node child : node.children) {
                    nodes.push(child);
                    starts.push(end);
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    // ---- walking and inserting (callers hold the lock) ----

    /** The nodes {@code text} walks through from the root, with the text offset each one's match ends at. */
    private Walk walk(String text) {
        Walk walk = new Walk();
        Node node = root;
        int pos = 0;
        while (pos < text.length()) {
            Node child = node.child(text.codePointAt(pos));
            if (child == null) {
                break;
            }
            int n = EdgeText.commonPrefix(child.edge, text, pos);
            if (n == 0) {
                break;
            }
            pos += n;
            walk.add(child, pos);
            if (n < child.length()) {
                break;
            }
            node = child;
        }
        return walk;
    }

    private int insertAlong(Walk walk, String text, String tenant) {
        int handle = handleFor(tenant);
        long now = ++clock;
        int held = 0;
        Node parent = root;
        int start = 0;
        for (int i = 0; i < walk.size; i++) {
            Node node = walk.nodes[i];
            int end = walk.ends[i];
            if (end - start < node.length()) {
                node = split(node, end - start);
            }
            if (node.touch(handle, now)) {
                held = end;
            } else {
                tenantChars[handle] += node.length();
            }
            parent = node;
            start = end;
        }
        if (start < text.length()) {
            Node leaf = new Node(parent, text.substring(start), new long[] {Node.slot(handle, now)});
            parent.addChild(leaf);
            int length = text.length() - start;
            storedChars += length;
            tenantChars[handle] += length;
            nodeCount++;
        }
        if (storedChars > burstLimit) {
            evictToCap();
        }
        return held;
    }

    /** Cuts {@code node}'s edge after {@code at} units; returns the new upper node, which holds the same tenants. */
    private Node split(Node node, int at) {
        Node upper = new Node(node.parent, node.edge.substring(0, at), node.tenants.clone());
        node.parent.replaceChild(node, upper);
        node.edge = node.edge.substring(at);
        node.parent = upper;
        upper.addChild(node);
        nodeCount++;
        return upper;
    }

    private int handleFor(String tenant) {
        int handle = registry.handleOf(tenant);
        if (handle >= 0) {
            return handle;
        }
        if (registry.size() >= Node.MAX_TENANTS) {
            throw new IllegalStateException("more than " + Node.MAX_TENANTS + " workers in one tree");
        }
        registry = registry.with(tenant);
        handle = registry.handleOf(tenant);
        if (handle >= tenantChars.length) {
            tenantChars = Arrays.copyOf(tenantChars, Math.max(8, registry.handleLimit() * 2));
        }
        tenantChars[handle] = 0;
        return handle;
    }

    /** Unlinks a node that has no tenants (and so, by the invariant, no children left). */
    private void detach(Node node) {
        node.parent.removeChild(node);
        storedChars -= node.length();
        nodeCount--;
    }

    // ---- eviction (callers hold the write lock) ----

    private record Evictable(long stamp, int handle, Node node) {
    }

    private void evictToCap() {
        if (storedChars <= maxChars) {
            return;
        }
        PriorityQueue<Evictable> queue = new PriorityQueue<>(Comparator.comparingLong(Evictable::stamp));
        collectLeaves(queue);
        while (storedChars > maxChars && !queue.isEmpty()) {
            queue.addAll(evictPair(queue.poll()));
        }
    }

    /** Removes one (node, tenant) pair; returns the parent's pair when the parent has become a leaf for the tenant. */
    private List<Evictable> evictPair(Evictable pair) {
        Node node = pair.node();
        int handle = pair.handle();
        node.drop(handle);
        tenantChars[handle] -= node.length();
        if (node.tenants.length == 0) {
            detach(node);
            evictedChars += node.length();
        }
        Node parent = node.parent;
        if (parent != root && !parent.anyChildHolds(handle)) {
            return List.of(new Evictable(parent.stampOf(handle), handle, parent));
        }
        return List.of();
    }

    /** Drops the tenant from every node below {@code top} (and from {@code top} itself unless it is the root). */
    private void dropBelow(Node top, int handle) {
        // Preorder list of the nodes holding the tenant (the invariant lets the walk skip every other subtree),
        // then processed deepest first so a node's children are gone before the node itself is judged.
        List<Node> holding = new ArrayList<>();
        if (top != root) {
            holding.add(top);
        }
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(top);
        while (!stack.isEmpty()) {
            for (Node child : stack.pop().children) {
                if (child.holds(handle)) {
                    holding.add(child);
                    stack.push(child);
                }
            }
        }
        for (int i = holding.size() - 1; i >= 0; i--) {
            Node node = holding.get(i);
            node.drop(handle);
            if (node.tenants.length == 0) {
                detach(node);
            }
        }
    }

    /** Drops the tenant from {@code top} and everything below it, keeping its character count. */
    private void dropSubtree(Node top, int handle) {
        long chars = 0;
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(top);
        while (!stack.isEmpty()) {
            Node node = stack.pop();
            chars += node.length();
            for (Node child : node.children) {
                if (child.holds(handle)) {
                    stack.push(child);
                }
            }
        }
        dropBelow(top, handle);
        tenantChars[handle] -= chars;
    }

    /** Every (node, tenant) pair where no child of the node holds the tenant. */
    private void collectLeaves(PriorityQueue<Evictable> queue) {
        int[] seenInChild = new int[registry.handleLimit()];
        int generation = 0;
        ArrayDeque<Node> stack = new ArrayDeque<>();
        stack.push(root);
        while (!stack.isEmpty()) {
            Node node = stack.pop();
            generation++;
            for (Node child : node.children) {
                stack.push(child);
                for (long slot : child.tenants) {
                    seenInChild[Node.handle(slot)] = generation;
                }
            }
            if (node == root) {
                continue;
            }
            for (long slot : node.tenants) {
                if (seenInChild[Node.handle(slot)] != generation) {
                    queue.add(new Evictable(Node.stamp(slot), Node.handle(slot), node));
                }
            }
        }
    }

    // ---- inspection for tests ----

    /**
     * Recounts the tree and checks its invariants.
     *
     * @throws IllegalStateException naming the first broken invariant
     */
    void checkInvariants() {
        lock.readLock().lock();
        try {
            long chars = 0;
            int nodes = 0;
            long[] perTenant = new long[tenantChars.length];
            ArrayDeque<Node> stack = new ArrayDeque<>();
            stack.push(root);
            while (!stack.isEmpty()) {
                Node node = stack.pop();
                int previousKey = -1;
                for (Node child : node.children) {
                    check(child.parent == node, "child's parent link", child);
                    check(child.length() > 0, "empty edge", child);
                    int key = EdgeText.firstCodePoint(child.edge);
                    check(key > previousKey, "children sorted by distinct first code point", child);
                    previousKey = key;
                    check(child.tenants.length > 0, "node without tenants", child);
                    for (int i = 0; i < child.tenants.length; i++) {
                        int handle = Node.handle(child.tenants[i]);
                        check(i == 0 || handle > Node.handle(child.tenants[i - 1]), "tenants sorted", child);
                        check(registry.nameOf(handle) != null, "tenant handle registered", child);
                        check(node == root || node.holds(handle), "tenant at node is at parent", child);
                        perTenant[handle] += child.length();
                    }
                    check(node == root || !Character.isHighSurrogate(node.edge.charAt(node.length() - 1))
                            || !Character.isLowSurrogate(child.edge.charAt(0)), "no surrogate pair split", child);
                    chars += child.length();
                    nodes++;
                    stack.push(child);
                }
            }
            check(chars == storedChars, "stored chars " + storedChars + " equal a recount " + chars, root);
            check(nodes == nodeCount, "node count " + nodeCount + " equals a recount " + nodes, root);
            for (int h = 0; h < perTenant.length; h++) {
                long counted = h < tenantChars.length ? tenantChars[h] : 0;
                check(perTenant[h] == counted, "tenant " + registry.nameOf(h) + " chars " + counted
                        + " equal a recount " + perTenant[h], root);
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    private static void check(boolean ok, String invariant, Node node) {
        if (!ok) {
            throw new IllegalStateException("invariant broken: " + invariant + " at " + node);
        }
    }

    /**
     * For each tenant, the texts it still holds in full: root-to-node strings ending at nodes where no child holds
     * the tenant. Tenants registered with nothing stored map to an empty list.
     */
    Map<String, List<String>> storedTexts() {
        lock.readLock().lock();
        try {
            Map<String, List<String>> texts = new HashMap<>();
            for (String name : registry.names()) {
                texts.put(name, new ArrayList<>());
            }
            collectTexts(root, new StringBuilder(), texts);
            return texts;
        } finally {
            lock.readLock().unlock();
        }
    }

    private void collectTexts(Node node, StringBuilder prefix, Map<String, List<String>> texts) {
        // Recursion depth is the tree depth; tests keep texts short.
        for (Node child : node.children) {
            int mark = prefix.length();
            prefix.append(child.edge);
            for (long slot : child.tenants) {
                if (!child.anyChildHolds(Node.handle(slot))) {
                    texts.get(registry.nameOf(Node.handle(slot))).add(prefix.toString());
                }
            }
            collectTexts(child, prefix, texts);
            prefix.setLength(mark);
        }
    }

    /** The path of one walk; grows as needed. */
    private static final class Walk {
        Node[] nodes = new Node[8];
        int[] ends = new int[8];
        int size;

        void add(Node node, int end) {
            if (size == nodes.length) {
                nodes = Arrays.copyOf(nodes, size * 2);
                ends = Arrays.copyOf(ends, size * 2);
            }
            nodes[size] = node;
            ends[size] = end;
            size++;
        }

        PrefixMatch toMatch(int textChars, TenantRegistry registry) {
            return new PrefixMatch(textChars, nodes, ends, size, registry);
        }
    }
}
