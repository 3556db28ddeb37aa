package dev.homing.core.tree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the tree holds of one text: how many leading characters some worker holds, and which workers hold how much.
 *
 * <p>The match is a path of levels, one per tree node the text walked through, shallowest first. Level {@code i}
 * ends at {@link #levelEnd(int)} characters into the text; the tenants at a level are the workers holding the text
 * up to at least that end. A tenant at a level is at every shallower level too, so a worker's own matched length is
 * the end of the deepest level that holds it, and the tenants of the deepest level are exactly the workers with the
 * longest match. Nothing here costs time in the number of workers unless the caller iterates the tenants.
 *
 * <p>Tenants are named by small int handles ({@link #tenantOf(String)}, {@link #tenantName(int)}), stable while the
 * worker stays in the tree, so a policy can index arrays by them. Immutable and safe to keep: it holds copy-on-write
 * snapshots of the tree's tenant arrays.
 */
public final class PrefixMatch {

    private final int textChars;
    private final int[] ends;
    private final long[][] tenants;
    private final TenantRegistry registry;

    /**
     * The match of a text of {@code textChars} characters along the first {@code levels} nodes of a walk, node
     * {@code i} ending {@code ends[i]} characters into the text. Keeps the nodes' tenant arrays themselves: the
     * tree replaces a node's array when a tenant comes or goes (see {@link Node}).
     */
    PrefixMatch(int textChars, Node[] nodes, int[] ends, int levels, TenantRegistry registry) {
        this.textChars = textChars;
        this.registry = registry;
        this.ends = Arrays.copyOf(ends, levels);
        this.tenants = new long[levels][];
        for (int i = 0; i < levels; i++) {
            tenants[i] = nodes[i].tenants;
        }
    }

    /** Characters (UTF-16 units) of the text. */
    public int textChars() {
        return textChars;
    }

    /** Leading characters of the text held by at least one worker. */
    public int matchedChars() {
        return ends.length == 0 ? 0 : ends[ends.length - 1];
    }

    /** Share of the text matched; 0 for an empty text. */
    public double matchRatio() {
        return textChars == 0 ? 0.0 : (double) matchedChars() / textChars;
    }

    /** Number of levels; 0 when nothing matched. */
    public int levels() {
        return ends.length;
    }

    /** Characters of the text held by every tenant at {@code level}. */
    public int levelEnd(int level) {
        return ends[level];
    }

    public int tenantCount(int level) {
        return tenants[level].length;
    }

    /** The handle of the {@code i}-th tenant at {@code level} (handles ascend with {@code i}). */
    public int tenantAt(int level, int i) {
        return Node.handle(tenants[level][i]);
    }

    /** Whether the worker with handle {@code tenant} holds the text up to {@link #levelEnd(int) levelEnd(level)}. */
    public boolean holds(int level, int tenant) {
        return Node.indexOf(tenants[level], tenant) >= 0;
    }

    /** The handle of a worker id, or -1 when the worker holds nothing in the tree. */
    public int tenantOf(String workerId) {
        return registry.handleOf(workerId);
    }

    /** The worker id of a handle. */
    public String tenantName(int tenant) {
        return registry.nameOf(tenant);
    }

    /** One more than the largest handle: the size of an array indexed by handle. */
    public int tenantLimit() {
        return registry.handleLimit();
    }

    /** Characters of the text the worker with handle {@code tenant} holds; 0 for an unknown handle. */
    public int matchedCharsFor(int tenant) {
        for (int level = ends.length - 1; level >= 0; level--) {
            if (holds(level, tenant)) {
                return ends[level];
            }
        }
        return 0;
    }

    /** Characters of the text the worker {@code workerId} holds. */
    public int matchedCharsFor(String workerId) {
        int tenant = tenantOf(workerId);
        return tenant < 0 ? 0 : matchedCharsFor(tenant);
    }

    /** The workers holding the longest match (all of them hold {@link #matchedChars()}); empty when none. */
    public List<String> tenantsAtDeepest() {
        if (ends.length == 0) {
            return List.of();
        }
        long[] deepest = tenants[ends.length - 1];
        List<String> names = new ArrayList<>(deepest.length);
        for (long slot : deepest) {
            names.add(registry.nameOf(Node.handle(slot)));
        }
        return names;
    }

    @Override
    public String toString() {
        return "PrefixMatch[" + matchedChars() + "/" + textChars + " chars, deepest " + tenantsAtDeepest() + "]";
    }
}
