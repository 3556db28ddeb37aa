package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PrefixTreePolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerMatches;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.tree.PrefixMatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Routes a request to the worker most likely to hold its prompt prefix in cache, unless the workers' loads are too
 * far apart. The decision order is the reference gateway's:
 * <ol>
 *   <li>no available worker: none ({@code no_healthy_workers});</li>
 *   <li>imbalanced, meaning {@code max - min > balanceAbsThreshold} and {@code max > min * balanceRelThreshold}
 *       (both strict, loads over the available workers): the least-loaded worker ({@code imbalance});</li>
 *   <li>otherwise match the text in the tree: a match ratio strictly above {@code cacheThreshold} goes to a worker
 *       holding the match ({@code hit}), anything else to the least-loaded worker ({@code miss}).</li>
 * </ol>
 * Every branch then inserts the text for the chosen worker. Differences from the reference, each a fix of a known
 * problem: a matched worker that is unavailable is passed over, not wiped from the tree, and the request goes to the
 * best available holder or the least-loaded worker rather than to the first worker; ties among the least loaded
 * rotate instead of always going to the first; among workers holding the same longest match the least loaded wins.
 *
 * <p>A request with an exact view ({@link dev.homing.core.kv.ExactOverlay}) is decided by the same rule on
 * {@link WorkerMatches}: each exact worker's match is what its engine holds, every other worker's the tree's.
 *
 * <p>Thread-safe: the tree locks itself (a decision runs under its write lock, where the tenants' positions are
 * found) and the tie-break rotation is an atomic counter.
 */
public final class CacheAwarePolicy extends PrefixTreePolicy {

    public static final String NAME = "cache_aware";

    private final double cacheThreshold;
    private final int balanceAbsThreshold;
    private final double balanceRelThreshold;
    /** Which of several equally loaded workers goes next; starts at the seed, so runs repeat for a given seed. */
    private final AtomicLong turn;

    /** @param nanoClock times how long a text placed under an exact view still counts as in prefill */
    public CacheAwarePolicy(PolicyConfig config, LongSupplier nanoClock) {
        super(NAME, config, nanoClock);
        this.cacheThreshold = config.cacheThreshold();
        this.balanceAbsThreshold = config.balanceAbsThreshold();
        this.balanceRelThreshold = config.balanceRelThreshold();
        this.turn = new AtomicLong(config.seed());
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        int min = Integer.MAX_VALUE;
        int max = Integer.MIN_VALUE;
        for (WorkerView w : workers) {
            if (w.available()) {
                min = Math.min(min, w.inFlight());
                max = Math.max(max, w.inFlight());
            }
        }
        if (max == Integer.MIN_VALUE) {
            return Decision.noHealthyWorkers();
        }
        String text = request.text();
        if (imbalanced(min, max)) {
            int chosen = leastLoaded(workers, min);
            int held = tree.insert(text, workers.get(chosen).id());
            return judgedWithoutMatch(workers, request, new Decision(chosen, "imbalance", held, text.length()));
        }
        int minLoad = min;
        return decideOnMatch(workers, request,
                (match, matches) -> matches == null ? decide(workers, minLoad, match) : decide(workers, minLoad,
                        match.textChars(), matches));
    }

    private boolean imbalanced(int min, int max) {
        return (long) max - min > balanceAbsThreshold && max > min * balanceRelThreshold;
    }

    /** Runs under the tree's lock; looks at the tenants of the matched levels only, not at every worker. */
    private Decision decide(List<WorkerView> workers, int minLoad, PrefixMatch match) {
        int textChars = match.textChars();
        // Deepest level first: its tenants hold the longest match. When none of them is available (gone,
        // unhealthy, circuit open) the next level up is the best other holder. The reference wiped such a
        // tenant from the whole tree on the request path and sent the request to worker 0 instead.
        for (int level = match.levels() - 1; level >= 0; level--) {
            int end = match.levelEnd(level);
            if (!aboveThreshold(end, textChars)) {
                break;
            }
            int chosen = leastLoadedHolder(workers, match, level);
            if (chosen >= 0) {
                return new Decision(chosen, "hit", end, textChars);
            }
        }
        int chosen = leastLoaded(workers, minLoad);
        return new Decision(chosen, "miss", match.matchedCharsFor(workers.get(chosen).id()), textChars);
    }

    /**
     * The same rule on per-worker matches, some judged by the exact view: the longest match among the available
     * workers, when above the threshold, goes to its least-loaded holder (ties rotated in tree order), else the
     * least-loaded worker. On the tree's matches alone this is {@link #decide(List, int, PrefixMatch)}: a walk from
     * the deepest level stops at the first level with an available tenant, whose available tenants all hold exactly
     * that level.
     */
    private Decision decide(List<WorkerView> workers, int minLoad, int textChars, WorkerMatches matches) {
        int longest = -1;
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available()) {
                longest = Math.max(longest, matches.chars(i));
            }
        }
        if (aboveThreshold(longest, textChars)) {
            List<Integer> holders = new ArrayList<>();
            for (int i : matches.longestFirst()) {
                if (matches.chars(i) == longest && workers.get(i).available()) {
                    holders.add(i);
                }
            }
            return new Decision(leastLoadedOf(workers, holders), "hit", longest, textChars);
        }
        int chosen = leastLoaded(workers, minLoad);
        return new Decision(chosen, "miss", matches.chars(chosen), textChars);
    }

    private boolean aboveThreshold(int matched, int textChars) {
        double ratio = textChars == 0 ? 0.0 : (double) matched / textChars;
        return ratio > cacheThreshold;
    }

    /** The least-loaded available worker among the tenants at {@code level}, ties rotated; -1 when none. */
    private int leastLoadedHolder(List<WorkerView> workers, PrefixMatch match, int level) {
        List<Integer> candidates = new ArrayList<>(match.tenantCount(level));
        for (int i = 0; i < match.tenantCount(level); i++) {
            int index = position(match, match.tenantAt(level, i), workers);
            if (index >= 0 && workers.get(index).available()) {
                candidates.add(index);
            }
        }
        return candidates.isEmpty() ? -1 : leastLoadedOf(workers, candidates);
    }

    /** The least-loaded of {@code candidates} (available, in order), ties rotated. */
    private int leastLoadedOf(List<WorkerView> workers, List<Integer> candidates) {
        int best = Integer.MAX_VALUE;
        int ties = 0;
        for (int i : candidates) {
            int load = workers.get(i).inFlight();
            if (load < best) {
                best = load;
                ties = 1;
            } else if (load == best) {
                ties++;
            }
        }
        int pick = nextTie(ties);
        for (int i : candidates) {
            if (workers.get(i).inFlight() == best && pick-- == 0) {
                return i;
            }
        }
        throw new AssertionError("tie count changed while counting");
    }

    /** The available worker with load {@code minLoad}; several such workers take turns. */
    private int leastLoaded(List<WorkerView> workers, int minLoad) {
        int ties = 0;
        for (WorkerView w : workers) {
            if (w.available() && w.inFlight() == minLoad) {
                ties++;
            }
        }
        int pick = nextTie(ties);
        for (int i = 0; i < workers.size(); i++) {
            WorkerView w = workers.get(i);
            if (w.available() && w.inFlight() == minLoad && pick-- == 0) {
                return i;
            }
        }
        throw new AssertionError("no available worker with the minimum load");
    }

    /** Which of {@code ties} equal candidates to take. The reference always took the first, which piles onto it. */
    private int nextTie(int ties) {
        return ties == 1 ? 0 : (int) Math.floorMod(turn.getAndIncrement(), (long) ties);
    }
}
