package dev.homing.core.policy;

import dev.homing.core.tree.PrefixMatch;
import dev.homing.core.tree.PrefixTree;
import dev.homing.core.tree.TreeStats;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What the policies that route by a prefix tree ({@code cache_aware}, {@code load_aware_affinity}) share: the
 * model's tree, the tenants' positions in a decision's worker list, the decision made between matching the text and
 * inserting it for the chosen worker, and the tree's part of housekeeping and metrics.
 *
 * <p>Thread-safety: the tree locks itself; {@link #positions} is used only by {@link #position}, which runs inside a
 * decision, under the tree's write lock.
 */
public abstract class PrefixTreePolicy extends SeededPolicy {

    protected final PrefixTree tree;
    /** Guarded by the tree's write lock. */
    private final WorkerPositions positions = new WorkerPositions();

    protected PrefixTreePolicy(String name, PolicyConfig config) {
        super(name, config);
        this.tree = new PrefixTree(config.maxTreeSize());
    }

    /** The model's tree, for tests and benchmarks. */
    public PrefixTree tree() {
        return tree;
    }

    /**
     * Matches the request's text, lets {@code decide} choose from the match and inserts the text for the chosen
     * worker, in one walk of the tree under its write lock; a decision that found nobody inserts nothing.
     */
    protected final Decision decideOnMatch(List<WorkerView> workers, String text,
                                           Function<PrefixMatch, Decision> decide) {
        return tree.matchAndInsert(text, decide,
                decision -> decision.found() ? workers.get(decision.workerIndex()).id() : null);
    }

    /** The index in {@code workers} of the match's tenant {@code tenant}, or -1; only inside {@link #decideOnMatch}. */
    protected final int position(PrefixMatch match, int tenant, List<WorkerView> workers) {
        return positions.find(match, tenant, workers);
    }

    @Override
    public Optional<PrefixTree> routingTree() {
        return Optional.of(tree);
    }

    @Override
    public Optional<TreeStats> treeStats() {
        return Optional.of(tree.stats());
    }

    /** Forgets the worker's share of the tree. */
    @Override
    public void onWorkerRemoved(String workerId) {
        tree.removeTenant(workerId);
    }

    /** Brings the tree down to its cap. */
    @Override
    public void maintain() {
        tree.evict();
    }
}
