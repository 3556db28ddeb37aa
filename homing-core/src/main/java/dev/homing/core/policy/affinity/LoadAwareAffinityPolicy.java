package dev.homing.core.policy.affinity;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PendingPrefill;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PrefixTreePolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.RoutingRequest.Reuse;
import dev.homing.core.policy.WorkerMatches;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.policy.affinity.FleetLedgers.Census;
import dev.homing.core.tree.PrefixMatch;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Routes a request where its prompt prefix is cached, as long as that worker is not carrying more than its share,
 * and can learn from the engines what they really kept. Five rules, each a fix of a weak spot of {@code cache_aware}:
 * <ol>
 *   <li><b>Bounded load</b> (consistent hashing with bounded loads, applied to affinity): a worker whose recent work
 *       (uncached prompt characters routed to it, decayed over a window of decisions) is above {@code loadFactor}
 *       times the fleet's mean, this request included, is not a candidate, unless it holds a match and is above the
 *       bound by less than {@code moveTolerance} of the match's saving (moving would cost the saving in prefill). The
 *       factor rises by {@code promptShareSlack} times the share of an engine's cache one prompt fills. The others
 *       stay candidates, so affinity is never dropped wholesale the way the reference's global imbalance gate drops
 *       it.</li>
 *   <li><b>Cost</b>: among the candidates the cheapest wins, in characters of prefill: what this request would
 *       compute there (text less the worker's match) plus {@code pendingWeight} times the prefill already queued
 *       there (uncached characters sent and not yet answered with a first token). Load counts tokens to prefill, not
 *       requests. Equal costs go to the least recent work.</li>
 *   <li><b>Hot prefixes</b>: only the part of a match beyond what every available worker holds counts, and only when
 *       it exceeds {@code minSaving} of the text; a system prompt or the Mooncake trace's
 *       first block that all workers hold decides nothing, and the branch says {@code miss}, not {@code hit}.</li>
 *   <li><b>Prefill wait</b>: a request whose match on its worker relies on text an earlier request is still
 *       computing there carries a {@link Decision.Hold}: the caller sends it after that request's first token, so
 *       the engine does not compute the prefix twice in one prefill step ({@code prefillWaitMillis}, 0 = off).</li>
 *   <li><b>Overload valve</b>: a chosen worker with more requests in flight than the fewest by more than the
 *       reference's balance thresholds gives the request to the worker with the fewest (a fleet past saturation).</li>
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
 * <p>Cost: one walk of the text in the tree (shared with the insert), one read of each worker's id and availability
 * (as cache_aware reads each load) and of its ledger's prompt share, and then only the tenants of the levels that decide, each found by its cached
 * position. The least recent work comes from a heap ({@link FleetLedgers}), not a scan; with a pending weight above
 * 0 the queue term needs every worker's queue, and the decision reads every ledger.
 *
 * <p>Thread-safe: the decision runs under the tree's write lock (it matches and inserts in one hold), which also
 * guards the state the decisions carry from one to the next: the ledgers' recent work, the work scale, the fleet,
 * the decision count and the per-tenant arrays. What one decision works out on its way (the fleet's census, the
 * best candidate) are values it passes along, never fields. Feedback updates atomics and takes the tree's lock only
 * to forget branches. Other gateway replicas' placements ({@link #onRemotePlacement}) wait in a queue under its own
 * lock and are counted by the next decision, under the tree's lock, each as one decision, so that the window and the
 * load bound are the fleet's.
 */
public final class LoadAwareAffinityPolicy extends PrefixTreePolicy {

    public static final String NAME = "load_aware_affinity";

    /** Far below a double's range (1e308) and reached only every 59,000 decisions at the default window of 256. */
    private static final double RESCALE_ABOVE = 1e100;

    private final AffinitySettings settings;
    private final int overloadAbs;
    private final double overloadRel;
    private final double keep;
    private final Map<String, WorkerLedger> ledgers = new ConcurrentHashMap<>();
    /** Guarded by the tree's write lock; null when one-off placement is off. */
    private final OneOffPredictor oneOffPredictor;

    /**
     * Guarded, like every field below, by the tree's write lock (used only inside a decision).
     * Recent work decays by {@code keep} at every decision. Rather than decay every ledger, work is stored in units
     * that grow by {@code 1 / keep} a decision: a ledger's stored value over this scale is its recent work.
     */
    private double workScale = 1.0;
    /** The ledgers of the last worker list, by position: the gateway passes its workers in a stable order. */
    private FleetLedgers fleet = FleetLedgers.EMPTY;
    /** Which decision last counted each tenant handle, so a tenant listed at several levels counts once. */
    private long[] seenByTenant = new long[0];
    /** Decisions made; names the current one in {@link #seenByTenant}. */
    private long decisions;
    /** Bumped when a worker is removed, so a fleet that still lists its (retired) ledger is built again. */
    private final AtomicLong removals = new AtomicLong();
    /**
     * Other gateway replicas' placements not yet counted, oldest first; locked by itself (they arrive on the bus's
     * thread), counted by the next decision. At most {@link #remoteLimit}: older work has decayed to almost nothing.
     */
    private final ArrayDeque<RemoteWork> remoteWork = new ArrayDeque<>();
    private final int remoteLimit;
    /** Set when {@link #remoteWork} may hold work; read first, so that a gateway alone never takes its lock. */
    private volatile boolean remoteQueued;

    private record RemoteWork(String workerId, int uncachedChars) {
    }

    /**
     * @param nanoClock times how long a text placed under an exact view still counts as in prefill (the window
     *                  counts decisions, not time)
     */
    public LoadAwareAffinityPolicy(PolicyConfig config, LongSupplier nanoClock) {
        super(NAME, config, nanoClock);
        this.settings = config.affinity();
        this.overloadAbs = config.balanceAbsThreshold();
        this.overloadRel = config.balanceRelThreshold();
        this.keep = settings.keepPerDecision();
        this.remoteLimit = 8 * settings.windowDecisions();
        this.oneOffPredictor = settings.placeOneOff() ? new OneOffPredictor() : null;
    }

    /** The settings this policy runs with. */
    public AffinitySettings settings() {
        return settings;
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        if (!anyAvailable(workers)) {
            return Decision.noHealthyWorkers();
        }
        return decideOnMatch(workers, request, (match, matches) -> decide(workers, request.text(), request.reuse(), match,
                matches));
    }

    private static boolean anyAvailable(List<WorkerView> workers) {
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs under the tree's write lock. Reads every worker once (its id and availability, as cache_aware reads every
     * load), then only the tenants of the levels that decide: the level every available worker holds (the floor) and
     * the levels beyond it by more than the minimum saving. The least recent work comes from the fleet's heap.
     * With per-worker {@code matches} (an exact view; null without one) the floor and the holders come from them
     * instead, met in the same order as the levels would give them.
     */
    private Decision decide(List<WorkerView> workers, String text, Reuse reuse, PrefixMatch match,
                            WorkerMatches matches) {
        countRemoteWork();
        advanceWorkScale(); // first: a rescale changes the stored values the census sums
        Census census = census(workers);
        FleetLedgers ledgers = census.ledgers();
        decisions++;
        int n = workers.size();
        int textChars = match.textChars();
        int floor = matches == null ? floor(match, workers, census.available()) : matches.floor(workers);
        // The mean counts this request at its full length, so the least loaded worker is always within the bound.
        double bound = loadFactor(census)
                * ((ledgers.totalScaledWork() - census.unavailableScaledWork()) / workScale + textChars)
                / census.available();
        Choice choice = new Choice();
        // A saving no larger than minSaving is noise (a few characters of a block tag, a short common
        // opening): it must not pull the request away from the least loaded worker.
        int minSaving = (int) (settings.minSaving() * textChars);
        Holder holder = (i, end) -> {
            choice.anySaving = true;
            double work = ledgers.ledger(i).scaledWork() / workScale;
            if (work <= bound + settings.moveTolerance() * (end - floor)) {
                choice.offer(i, cost(ledgers.ledger(i), textChars - end), work, end);
            }
        };
        if (matches == null) {
            offerTreeHolders(match, workers, floor, minSaving, choice, holder);
        } else {
            offerHolders(matches, workers, textChars, floor, minSaving, choice, holder);
        }
        // Everyone else saves only the floor. Without a queue term their costs are equal, so the least recent work
        // among them is the fleet's least recent work overall (always within the bound).
        if (settings.pendingWeight() == 0) {
            int least = ledgers.leastWorkAvailable(workers);
            choice.offer(least, textChars - floor, ledgers.ledger(least).scaledWork() / workScale, floor);
        } else {
            for (int i = 0; i < n; i++) {
                double work = ledgers.ledger(i).scaledWork() / workScale;
                if (workers.get(i).available() && work <= bound) {
                    choice.offer(i, cost(ledgers.ledger(i), textChars - floor), work, floor);
                }
            }
        }
        boolean oneOff = oneOffPredictor != null && oneOffPredictor.oneOff(text, floor, reuse) && !choice.anySaving;
        if (oneOff) {
            int scratch = scratchWorker(workers, ledgers, textChars);
            if (scratch >= 0) {
                choice.worker = scratch;
                choice.matched = floor;
            }
        }
        int fewest = overloadedInFavourOf(workers, workers.get(choice.worker).inFlight());
        if (fewest >= 0) {
            choice.worker = fewest;
            choice.matched = Math.min(choice.matched, floor); // every available worker holds the floor
        }
        ledgers.placed(choice.worker, textChars - choice.matched, workScale);
        if (oneOffPredictor != null) {
            ledgers.ledger(choice.worker).routed(textChars, workScale);
        }
        String branch = choice.matched > floor ? "hit" : choice.anySaving ? "balance" : "miss";
        if (!settings.waitsForPrefill()) {
            return new Decision(choice.worker, branch, choice.matched, textChars);
        }
        return withPrefillWait(ledgers.ledger(choice.worker), text, textChars, choice.worker, branch, choice.matched,
                Math.max(1, minSaving));
    }

    /**
     * The load factor, raised by the share of an engine's cache one prompt fills. Where engines hold a few prompts
     * each, a turn moved off its holder brings its whole history to a cache that must evict a live conversation for
     * it, whose next turn misses and, in a busy fleet, gets moved in turn: the fleet tips into recomputing almost
     * everything (multi-turn on engines of under two prompts: 36% on the exact view against 80% with no moves). A
     * wider bound keeps each conversation on its engine there, and changes little where a prompt is a small part of
     * a cache (Mooncake on 1M tokens: 1.25 becomes 1.35).
     */
    private double loadFactor(Census census) {
        return settings.loadFactor() + settings.promptShareSlack() * census.promptShare();
    }

    /**
     * Where one-off work goes: the first worker, in the fleet's order, whose recent prompt characters (cached or
     * not) stay within the load bound with this request added, so that one-off text fills the same few caches and
     * evicts its own kind there without pushing any worker past the bound (allowing the least loaded to pass it, as
     * the work bound does, gave a max/mean prompt load of 1.29 on Mooncake). The bound counts prompts, not work: a worker full of one-off text computes all it is
     * sent, and the work bound would hold it to the mean work while the others' cached prompts weigh nothing.
     * -1 when none can take it. Reads every ledger, only for requests predicted one-off.
     */
    private int scratchWorker(List<WorkerView> workers, FleetLedgers ledgers, int textChars) {
        double total = textChars;
        int available = 0;
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available()) {
                total += ledgers.ledger(i).scaledPromptChars() / workScale;
                available++;
            }
        }
        double bound = settings.loadFactor() * total / available;
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).available()
                    && ledgers.ledger(i).scaledPromptChars() / workScale + textChars <= bound) {
                return i;
            }
        }
        return -1;
    }

    /** An available worker holding {@code end} characters, more than the minimum saving beyond the floor. */
    private interface Holder {
        void offer(int worker, int end);
    }

    /** Offers the tree's holders beyond the floor, deepest level first, each tenant at its deepest level only. */
    private void offerTreeHolders(PrefixMatch match, List<WorkerView> workers, int floor, int minSaving,
                                  Choice choice, Holder holder) {
        int textChars = match.textChars();
        for (int level = match.levels() - 1; level >= 0 && match.levelEnd(level) - floor > minSaving; level--) {
            int end = match.levelEnd(level);
            if (textChars - end > choice.cost) {
                // Every cost here is at least what this level leaves to compute: nothing shallower can win.
                // (A candidate was found, so the saving that existed is already recorded for the branch.)
                break;
            }
            for (int t = 0; t < match.tenantCount(level); t++) {
                int tenant = match.tenantAt(level, t);
                if (!firstSighting(tenant, match.tenantLimit())) {
                    continue; // seen at a deeper level, its longest match
                }
                int i = position(match, tenant, workers);
                if (i >= 0 && workers.get(i).available()) {
                    holder.offer(i, end);
                }
            }
        }
    }

    /** Offers the holders beyond the floor by per-worker matches, in the order the tree's levels would. */
    private void offerHolders(WorkerMatches matches, List<WorkerView> workers, int textChars, int floor,
                              int minSaving, Choice choice, Holder holder) {
        for (int i : matches.longestFirst()) {
            int end = matches.chars(i);
            if (end - floor <= minSaving || textChars - end > choice.cost) {
                break; // as the level walk stops: no saving worth counting, or nothing shorter can cost less
            }
            if (workers.get(i).available()) {
                holder.offer(i, end);
            }
        }
    }

    /**
     * The fourth rule, prefill wait: a request whose match on its worker goes, by more than the minimum saving,
     * into text an earlier request is still computing there waits for that request's first token. Sent at once, the
     * engine could admit it in the same prefill step and compute the prefix again. A request that brings new text
     * is remembered until its own first token, for the requests that may come to rely on it.
     */
    private Decision withPrefillWait(WorkerLedger chosen, String text, int textChars, int worker, String branch,
                                     int matched, int minChars) {
        // Not only beyond the floor: a prefix every worker is believed to hold may still be in its first prefill.
        PendingPrefill awaited = chosen.prefillReliedOn(text, matched, minChars);
        Decision.Hold hold = awaited == null ? null
                : new Decision.Hold(awaited, settings.prefillWaitMillis() * 1_000_000L);
        PendingPrefill prefill = null;
        if (textChars - matched > minChars) {
            prefill = new PendingPrefill();
            chosen.prefilling(text, matched, prefill);
        }
        return new Decision(worker, branch, matched, textChars, prefill, hold);
    }

    /**
     * The overload valve: a worker with more requests in flight than the fewest by more than the reference's
     * balance thresholds has a queue its recent work does not show (a fleet past saturation), so the request goes
     * to the worker with the fewest (returned; -1 keeps the choice). The reference's gate compares the busiest worker with the idlest and then
     * drops affinity for every request; this one looks at the chosen worker only.
     */
    private int overloadedInFavourOf(List<WorkerView> workers, int chosenInFlight) {
        if (chosenInFlight <= overloadAbs) {
            return -1; // no worker has fewer than 0 in flight: the common case reads nobody else
        }
        int fewest = -1;
        for (int i = 0; i < workers.size(); i++) {
            WorkerView worker = workers.get(i);
            if (worker.available() && (fewest < 0 || worker.inFlight() < workers.get(fewest).inFlight())) {
                fewest = i;
            }
        }
        int least = workers.get(fewest).inFlight();
        return chosenInFlight - least > overloadAbs && chosenInFlight > overloadRel * least ? fewest : -1;
    }

    /** The prefill a worker costs: what it would compute, plus its queue at the pending weight. */
    private long cost(WorkerLedger ledger, int toCompute) {
        return (long) (settings.pendingWeight() * ledger.pendingPrefillChars()) + toCompute;
    }

    /** The best candidate so far: least cost, then least recent work, then a uniform draw among the equal. */
    private final class Choice {
        int worker = Decision.NONE;
        long cost = Long.MAX_VALUE;
        double work = Double.MAX_VALUE;
        int matched;
        int ties;
        boolean anySaving;

        void offer(int i, long candidateCost, double candidateWork, int candidateMatched) {
            if (i == worker) {
                return; // the least-loaded worker may also have been offered as a holder of a match
            }
            if (candidateCost < cost || (candidateCost == cost && candidateWork < work)) {
                worker = i;
                cost = candidateCost;
                work = candidateWork;
                matched = candidateMatched;
                ties = 1;
            } else if (candidateCost == cost && candidateWork == work && picker.nextInt(++ties) == 0) {
                worker = i;
                matched = candidateMatched;
            }
        }
    }

    /**
     * What every available worker holds: the end of the deepest level whose tenants include them all, else 0. A
     * level listing fewer tenants than there are available workers cannot, so only the shallow levels are counted.
     */
    private int floor(PrefixMatch match, List<WorkerView> workers, int available) {
        for (int level = match.levels() - 1; level >= 0; level--) {
            int tenants = match.tenantCount(level);
            if (tenants < available) {
                continue;
            }
            int holders = 0;
            for (int t = 0; t < tenants; t++) {
                int i = position(match, match.tenantAt(level, t), workers);
                if (i >= 0 && workers.get(i).available()) {
                    holders++;
                }
            }
            if (holders == available) {
                return match.levelEnd(level);
            }
        }
        return 0;
    }

    /**
     * The worker list's census (one read of each worker), with a fleet of ledgers built again when the list is not
     * the one the last was built for, or a worker was removed since.
     */
    private Census census(List<WorkerView> workers) {
        Census census = fleet.removals() == removals.get() ? fleet.census(workers) : null;
        if (census == null) {
            fleet = FleetLedgers.of(workers, this::ledgerOf, removals.get());
            census = fleet.census(workers);
        }
        return census;
    }

    /** Whether this decision meets {@code tenant} for the first time. */
    private boolean firstSighting(int tenant, int tenantLimit) {
        if (seenByTenant.length < tenantLimit) {
            seenByTenant = Arrays.copyOf(seenByTenant, tenantLimit);
        }
        if (seenByTenant[tenant] == decisions) {
            return false;
        }
        seenByTenant[tenant] = decisions;
        return true;
    }

    /**
     * Counts the placements other replicas made since the last decision, each as a decision of this policy's own
     * (the work decays by one decision's share and grows on its worker), so the window spans the fleet's decisions.
     */
    private void countRemoteWork() {
        while (remoteQueued) {
            RemoteWork work;
            synchronized (remoteWork) {
                work = remoteWork.pollFirst();
                remoteQueued = !remoteWork.isEmpty();
            }
            if (work == null) {
                return;
            }
            advanceWorkScale();
            WorkerLedger ledger = ledgers.get(work.workerId());
            if (ledger != null) {
                fleet.worked(ledger, work.uncachedChars(), workScale);
            }
        }
    }

    @Override
    public void onRemotePlacement(String workerId, int uncachedChars) {
        synchronized (remoteWork) {
            if (remoteWork.size() == remoteLimit) {
                remoteWork.pollFirst();
            }
            remoteWork.addLast(new RemoteWork(workerId, uncachedChars));
            remoteQueued = true;
        }
    }

    /** Grows the work scale by one decision's decay; rescales every ledger before it could overflow. */
    private void advanceWorkScale() {
        workScale /= keep;
        if (workScale > RESCALE_ABOVE) {
            for (WorkerLedger ledger : ledgers.values()) {
                ledger.rescaleWork(workScale);
            }
            fleet.rescaled();
            workScale = 1.0;
        }
    }

    private WorkerLedger ledgerOf(String workerId) {
        WorkerLedger ledger = ledgers.get(workerId);
        return ledger != null ? ledger : ledgers.computeIfAbsent(workerId, WorkerLedger::new);
    }

    @Override
    public void onFirstToken(String workerId, Decision decision) {
        super.onFirstToken(workerId, decision);
        decision.prefillDone();
        WorkerLedger ledger = ledgers.get(workerId);
        if (ledger != null) {
            ledger.prefillDone(decision);
        }
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        super.onCompleted(workerId, request, decision, report);
        decision.prefillDone();
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

    /** Predicted against realised cache, per worker the policy has seen (zeros until its engine reports). */
    public List<HitAccuracy> hitAccuracy() {
        return ledgers.values().stream().map(WorkerLedger::accuracy)
                .sorted(Comparator.comparing(HitAccuracy::workerId)).toList();
    }

    @Override
    public void onWorkerRemoved(String workerId) {
        super.onWorkerRemoved(workerId);
        WorkerLedger removed = ledgers.remove(workerId);
        if (removed != null) {
            removed.retire();
            removals.incrementAndGet();
        }
    }

    @Override
    public void maintain() {
        super.maintain();
        if (!settings.boundsShareByCapacity()) {
            return;
        }
        tree.evictTenantsAbove(id -> {
            WorkerLedger ledger = ledgers.get(id);
            return ledger == null ? Long.MAX_VALUE : ledger.capacityChars(settings.charsPerToken());
        });
    }
}
