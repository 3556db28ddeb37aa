package dev.homing.core.policy;

import dev.homing.core.tree.PrefixMatch;
import dev.homing.core.tree.PrefixTree;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Routes a request where its prompt prefix is cached, as long as that worker is not carrying more than its share,
 * and can learn from the engines what they really kept. Three rules, each a fix of a weak spot of {@code cache_aware}:
 * <ol>
 *   <li><b>Bounded load</b> (consistent hashing with bounded loads, applied to affinity): a worker whose recent work
 *       (uncached prompt characters routed to it, decayed over a window of decisions) is above {@code loadFactor}
 *       times the fleet's mean, this request included, is not a candidate, however long its match. The others stay
 *       candidates, so affinity is never dropped wholesale the way the reference's global imbalance gate drops it.</li>
 *   <li><b>Cost</b>: among the candidates the cheapest wins, in characters of prefill: what this request would
 *       compute there (text less the worker's match) plus {@code pendingWeight} times the prefill already queued
 *       there (uncached characters sent and not yet answered with a first token). Load counts tokens to prefill, not
 *       requests. Equal costs go to the least recent work, then at random.</li>
 *   <li><b>Hot prefixes</b>: only the part of a match beyond what every available worker holds counts, and only when
 *       it exceeds {@code minSaving} of the text; a system prompt or the Mooncake trace's
 *       first block that all workers hold decides nothing, and the branch says {@code miss}, not {@code hit}.</li>
 * </ol>
 * Branch labels: {@code hit} (placed on a match beyond the shared prefix), {@code balance} (a longer match existed
 * but load or its size kept the request off it), {@code miss} (nobody held more than the shared prefix).
 *
 * <p><b>Feedback</b>: each finished request reports what the engine had cached; {@link #hitAccuracy()} sums
 * predicted against realised per worker. When the shortfall is beyond page rounding ({@code trimShare} of the
 * prediction, off by default) the branches the worker was believed to hold below that point are forgotten. With
 * {@code charsPerToken} set and the engines' KV capacity reported, {@link #maintain()} keeps each worker's share of
 * the tree within its engine's capacity. Both are measured and off by default (docs/POLICY.md says why).
 *
 * <p>Cost: one walk of the text in the tree (shared with the insert) and, per worker, one ledger lookup and a binary
 * search over the match's levels; the per-worker scratch arrays are reused, so a decision allocates no more than
 * cache_aware's.
 *
 * <p>Thread-safe: the decision runs under the tree's write lock (it matches and inserts in one hold), which also
 * guards the ledgers' recent work, the work scale and the scratch and positional arrays; feedback updates atomics
 * and takes the tree's lock only to forget branches.
 */
public final class LoadAwareAffinityPolicy implements RoutingPolicy {

    public static final String NAME = "load_aware_affinity";

    /** Far below a double's range (1e308) and reached only every 59,000 decisions at the default window of 256. */
    private static final double RESCALE_ABOVE = 1e100;

    private final AffinitySettings settings;
    private final double keep;
    private final PrefixTree tree;
    private final WorkerPicker picker;
    private final Map<String, WorkerLedger> ledgers = new ConcurrentHashMap<>();

    /**
     * Guarded, like every field below, by the tree's write lock (used only inside a decision).
     * Recent work decays by {@code keep} at every decision. Rather than decay every ledger, work is stored in units
     * that grow by {@code 1 / keep} a decision: a ledger's stored value over this scale is its recent work.
     */
    private double workScale = 1.0;
    private WorkerLedger[] scratchLedgers = new WorkerLedger[0];
    private int[] scratchMatched = new int[0];
    private double[] scratchWork = new double[0];
    /** Matched characters by tenant handle for the decision under way (guarded by the tree's lock, as above). */
    private int[] scratchDepthByTenant = new int[0];
    /** The ledgers of the last worker list, by position: the gateway passes its workers in a stable order. */
    private WorkerLedger[] knownLedgers = new WorkerLedger[0];

    /** @param nanoClock unused: the window counts decisions, not time; kept so every policy is built the same way */
    public LoadAwareAffinityPolicy(PolicyConfig config, LongSupplier nanoClock) {
        this.settings = config.affinity();
        this.keep = settings.keepPerDecision();
        this.tree = new PrefixTree(config.maxTreeSize());
        this.picker = new WorkerPicker(config.seed());
    }

    @Override
    public String name() {
        return NAME;
    }

    /** The settings this policy runs with. */
    public AffinitySettings settings() {
        return settings;
    }

    /** The model's tree, for metrics and tests. */
    public PrefixTree tree() {
        return tree;
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        if (WorkerPicker.availableCount(workers) == 0) {
            return Decision.noHealthyWorkers();
        }
        return tree.matchAndInsert(request.text(), match -> decide(workers, match),
                decision -> workers.get(decision.workerIndex()).id());
    }

    /** Runs under the tree's write lock. */
    private Decision decide(List<WorkerView> workers, PrefixMatch match) {
        int n = workers.size();
        if (scratchLedgers.length < n) {
            scratchLedgers = new WorkerLedger[n];
            scratchMatched = new int[n];
            scratchWork = new double[n];
            knownLedgers = Arrays.copyOf(knownLedgers, n);
        }
        advanceWorkScale();
        int[] depthByTenant = depthByTenant(match);
        int textChars = match.textChars();
        int floor = Integer.MAX_VALUE;
        double recentSum = 0;
        int available = 0;
        for (int i = 0; i < n; i++) {
            WorkerView worker = workers.get(i);
            if (!worker.available()) {
                continue;
            }
            WorkerLedger ledger = ledgerAt(i, worker.id());
            scratchLedgers[i] = ledger;
            int tenant = match.tenantOf(worker.id());
            int matched = tenant < 0 ? 0 : depthByTenant[tenant];
            scratchMatched[i] = matched;
            floor = Math.min(floor, matched);
            double work = ledger.scaledWork() / workScale;
            scratchWork[i] = work;
            recentSum += work;
            available++;
        }
        // A saving no larger than minSaving is noise (a few characters of a block tag, a short common
        // opening): it must not pull the request away from the least loaded worker.
        int minSaving = (int) (settings.minSaving() * textChars);
        boolean anySaving = false;
        for (int i = 0; i < n; i++) {
            if (scratchLedgers[i] != null) {
                if (scratchMatched[i] - floor <= minSaving) {
                    scratchMatched[i] = floor;
                } else {
                    anySaving = true;
                }
            }
        }
        // The mean counts this request at its full length, so the least loaded worker is always within the bound.
        double bound = settings.loadFactor() * (recentSum + textChars) / available;
        int chosen = Decision.NONE;
        long best = Long.MAX_VALUE;
        double bestRecent = Double.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < n; i++) {
            WorkerLedger ledger = scratchLedgers[i];
            if (ledger == null || scratchWork[i] > bound) {
                continue;
            }
            long queued = (long) (settings.pendingWeight() * ledger.pendingPrefillChars());
            long cost = queued + (textChars - scratchMatched[i]);
            double recent = scratchWork[i];
            if (cost < best || (cost == best && recent < bestRecent)) {
                best = cost;
                bestRecent = recent;
                chosen = i;
                ties = 1;
            } else if (cost == best && recent == bestRecent && picker.nextInt(++ties) == 0) {
                chosen = i;
            }
        }
        int matched = scratchMatched[chosen];
        scratchLedgers[chosen].placed(textChars - matched, workScale);
        Arrays.fill(scratchLedgers, 0, n, null);
        String branch = matched > floor ? "hit" : anySaving ? "balance" : "miss";
        return new Decision(chosen, branch, matched, textChars);
    }

    /**
     * Every tenant's matched characters in one pass over the match's levels: a tenant at a level is at every
     * shallower one, so the deepest level naming it writes last. The cost is the tenants listed along the path, not
     * workers times levels (a per-worker search over levels that each list hundreds of tenants cost 2x cache_aware's
     * decision at 64 workers and 11x at 512).
     */
    private int[] depthByTenant(PrefixMatch match) {
        if (scratchDepthByTenant.length < match.tenantLimit()) {
            scratchDepthByTenant = new int[match.tenantLimit()];
        }
        return matchedCharsByTenant(match, scratchDepthByTenant);
    }

    /** Fills {@code into} (at least {@code tenantLimit()} long) with each tenant handle's matched characters. */
    static int[] matchedCharsByTenant(PrefixMatch match, int[] into) {
        Arrays.fill(into, 0, match.tenantLimit(), 0);
        for (int level = 0; level < match.levels(); level++) {
            int end = match.levelEnd(level);
            for (int i = 0; i < match.tenantCount(level); i++) {
                into[match.tenantAt(level, i)] = end;
            }
        }
        return into;
    }

    /** Grows the work scale by one decision's decay; rescales every ledger before it could overflow. */
    private void advanceWorkScale() {
        workScale /= keep;
        if (workScale > RESCALE_ABOVE) {
            for (WorkerLedger ledger : ledgers.values()) {
                ledger.rescaleWork(workScale);
            }
            workScale = 1.0;
        }
    }

    /** The ledger of the worker at position {@code i} of the list, from the positional cache when it still holds. */
    private WorkerLedger ledgerAt(int i, String id) {
        WorkerLedger known = knownLedgers[i];
        if (known != null && known.isFor(id)) {
            return known;
        }
        WorkerLedger ledger = ledgerOf(id);
        knownLedgers[i] = ledger;
        return ledger;
    }

    private WorkerLedger ledgerOf(String workerId) {
        WorkerLedger ledger = ledgers.get(workerId);
        return ledger != null ? ledger : ledgers.computeIfAbsent(workerId, WorkerLedger::new);
    }

    @Override
    public void onFirstToken(String workerId, Decision decision) {
        WorkerLedger ledger = ledgers.get(workerId);
        if (ledger != null) {
            ledger.prefillDone(decision);
        }
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        WorkerLedger ledger = ledgers.get(workerId);
        if (ledger == null) {
            return;
        }
        if (!report.firstTokenReported()) {
            ledger.prefillDone(decision);
        }
        if (!report.knowsCache() || decision.textChars() == 0) {
            return;
        }
        int textChars = decision.textChars();
        int predicted = decision.matchedChars();
        // The engine counts tokens, the tree characters: its cached share of the prompt is applied to the text.
        int realised = (int) Math.min(textChars,
                (long) textChars * Math.min(report.cachedTokens(), report.promptTokens()) / report.promptTokens());
        ledger.reported(predicted, realised, textChars, report.promptTokens());
        int shortfall = predicted - realised;
        if (shortfall > settings.trimMinChars() && shortfall > settings.trimShare() * predicted) {
            ledger.trimmed(tree.forgetBranchesBelow(request.text(), realised, workerId));
        }
    }

    @Override
    public void onWorkerCapacity(String workerId, long kvTokens) {
        ledgerOf(workerId).capacity(kvTokens);
    }

    /** Predicted against realised cache, per worker that has been routed to. */
    public List<HitAccuracy> hitAccuracy() {
        return ledgers.values().stream().map(WorkerLedger::accuracy)
                .sorted(Comparator.comparing(HitAccuracy::workerId)).toList();
    }

    @Override
    public void onWorkerRemoved(String workerId) {
        tree.removeTenant(workerId);
        WorkerLedger removed = ledgers.remove(workerId);
        if (removed != null) {
            removed.retire();
        }
    }

    @Override
    public void maintain() {
        tree.evict();
        if (!settings.boundsShareByCapacity()) {
            return;
        }
        tree.evictTenantsAbove(id -> {
            WorkerLedger ledger = ledgers.get(id);
            return ledger == null ? Long.MAX_VALUE : ledger.capacityChars(settings.charsPerToken());
        });
    }
}
