package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.tree.PrefixMatch;
import dev.homing.core.tree.PrefixTree;
import dev.homing.core.tree.TreeStats;

import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

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
    /** Texts placed while an exact view was offered, until their engines can have reported them. */
    private final InFlightTexts inFlight;

    protected PrefixTreePolicy(String name, PolicyConfig config, LongSupplier nanoClock) {
        super(name, config);
        this.tree = new PrefixTree(config.maxTreeSize());
        this.inFlight = new InFlightTexts(nanoClock);
    }

    /** The model's tree, for tests and benchmarks. */
    public PrefixTree tree() {
        return tree;
    }

    /**
     * Matches the request's text, lets {@code decide} choose from the match and inserts the text for the chosen
     * worker, in one walk of the tree under its write lock; a decision that found nobody inserts nothing. The tree is
     * matched and inserted for every worker, exact or not, so a worker whose events stop is judged by a warm tree.
     *
     * <p>{@code decide} gets the per-worker matches ({@link WorkerMatches}) when the request carries an exact view,
     * and null when it carries {@link ExactOverlay#NONE}: the policy then walks the tree's levels as it always has.
     */
    protected final Decision decideOnMatch(List<WorkerView> workers, RoutingRequest request,
                                           BiFunction<PrefixMatch, WorkerMatches, Decision> decide) {
        String text = request.text();
        ExactOverlay overlay = request.exact();
        if (overlay == ExactOverlay.NONE) {
            return tree.matchAndInsert(text, match -> decide.apply(match, null),
                    decision -> chosenId(workers, decision));
        }
        return tree.matchAndInsert(text, match -> {
            WorkerMatches matches = WorkerMatches.of(match, text, workers, overlay, inFlight);
            Decision decision = matches.judged(decide.apply(match, matches));
            if (decision.found()) {
                inFlight.placed(workers.get(decision.workerIndex()).id(), text, decision);
            }
            return decision;
        }, decision -> chosenId(workers, decision));
    }

    private static String chosenId(List<WorkerView> workers, Decision decision) {
        return decision.found() ? workers.get(decision.workerIndex()).id() : null;
    }

    /**
     * A decision made without matching (such as cache_aware's imbalance branch) marked with its worker's view: the
     * overlay's tokens when the worker is exact.
     */
    protected final Decision judgedWithoutMatch(List<WorkerView> workers, RoutingRequest request, Decision decision) {
        ExactOverlay overlay = request.exact();
        if (overlay == ExactOverlay.NONE || !decision.found()) {
            return decision;
        }
        String id = workers.get(decision.workerIndex()).id();
        Decision judged = overlay.exact(id) ? decision.judgedOn(RoutingView.EXACT, overlay.cachedTokens(id)) : decision;
        inFlight.placed(id, request.text(), judged);
        return judged;
    }

    @Override
    public void onFirstToken(String workerId, Decision decision) {
        inFlight.prefillDone(workerId, decision);
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        inFlight.prefillDone(workerId, decision);
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
        inFlight.forget(workerId);
    }

    /** Brings the tree down to its cap. */
    @Override
    public void maintain() {
        tree.evict();
    }
}
