package dev.homing.bench.simulate;

import dev.homing.bench.simulate.ArrivalQueue.TurnArrival;
import dev.homing.bench.simulate.RequestShape.RenderedRequest;
import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.bench.report.PredictionGap;
import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.RoutingRequest.Reuse;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.RoutingView;
import dev.homing.core.replica.ModelReplica;
import dev.homing.core.replica.ReplicaCodec;
import dev.homing.core.replica.ReplicaEvent;
import dev.homing.core.tree.PrefixMatch;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.Tokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.HdrHistogram.Histogram;

/**
 * One workload through one routing policy in front of simulated engines, in simulated time: a discrete-event loop
 * over the very engine model objects the HTTP simulated engine drives in real time ({@link SimulatedFleet}: regular,
 * data-parallel or prefill/decode engines), and the very policy objects and placement protocol ({@link Placer},
 * {@link Placement}) the gateway runs.
 *
 * <p>The simulated gateway behaves as the live one does:
 * <ol>
 *   <li>A turn arrives at its time ({@link ArrivalQueue}); it is rendered as the client would send it
 *       ({@link RequestShape}), which gives the routing text and the engine's prompt tokens.</li>
 *   <li>It is placed as the gateway places it ({@link Placer}; every worker is available and admits every request)
 *       on the fleet's routed workers (a prefill/decode fleet's prefill workers). The policy sees one view per worker:
 *       {@code inFlight} counts requests placed there and not yet finished (a held request counts from its
 *       placement); {@code reportedLoad} is the worker's KV tokens in use at the last load sample (every
 *       {@code loadSampleIntervalNanos}), or unknown when sampling is off.</li>
 *   <li>A placement held for an earlier request's prefill is sent when that prefill is done or its wait runs out;
 *       any other is sent to its fleet at its arrival time. An engine that refuses a request (a prompt larger than
 *       its KV pool) is an error, and the placement ends unsent.</li>
 *   <li>TTFT is the client's first token's time minus the arrival, and the inter-token gaps the times between its
 *       next tokens; when the answer finishes, the conversation's next turn (if any) is queued with the engine's own
 *       answer text ({@link EngineAnswer}) in its history. A turn that no worker took, or that failed, ends its
 *       conversation.</li>
 *   <li>{@link RoutingPolicy#maintain()} runs every {@code maintainIntervalNanos} of simulated time.</li>
 * </ol>
 * The cache bounds see the same requests at the same moments ({@link SequenceBounds}), with the memory of the engines
 * the policy places on.
 *
 * <p>Several gateway replicas ({@link GatewayReplicas}): each has its own policy object, placement step and count of
 * its requests per routed worker, in front of the one fleet; an L4 split gives each request to one of them. With
 * sync on, each replica's {@link ModelReplica} publishes its decisions and a replica's count on a worker is published
 * when it changes; the others apply each event {@code busDelayNanos} later (a timer), as the live bus delivers them.
 * A prefill/decode fleet runs behind one gateway only ({@link SimulationSettings} refuses more): its decode step is
 * the fleet's own. Events are taken strictly in time order; at equal times engine steps come first (in the fleet's
 * order), then timers, then arrivals, so an arrival sees every answer that finished at its instant.
 *
 * <p>Invariants: simulated time never goes back, since each turn of the loop takes the earliest event left; every
 * placement ends exactly once (completed by its engine, or unsent), which its {@link Placement} checks.
 *
 * <p>Not thread-safe; single use: {@link #run} builds one and runs it to the end.
 */
public final class Simulation {

    /** The label of the foresight ceiling's run. */
    public static final String FORESIGHT_CEILING = "foresight ceiling";

    /** Inter-token gaps are kept to three significant digits, up to an hour. */
    private static final long LONGEST_GAP_NANOS = 3_600_000_000_000L;
    /** The one model a simulation serves: the key of its replicas' events. */
    private static final String MODEL = "simulated";
    /** A late replica's hit rate is compared with the others' over its first this long, then after. */
    static final long LATE_JOIN_WINDOW_NANOS = 10_000_000_000L;

    private final SimulationSettings settings;
    private final RequestShape shape;
    private final List<SimulatedGateway> gateways;
    private final SimulatedFleet<?> fleet;
    private final List<SimulatedWorker> workers;
    private final SequenceBounds bounds;
    /** Each request's future, for the foresight ceiling; null routes as a gateway would, without it. */
    private final ForesightLabels foresight;
    private final Map<String, Long> branches = new TreeMap<>();
    private final long[] requestsPerWorker;
    private final long[] promptTokensPerWorker;
    private final Histogram interTokenGaps = new Histogram(LONGEST_GAP_NANOS, 3);
    private long[] ttft = new long[1024];
    private int answered;
    private long requests;
    private long errors;
    private long now;
    private long firstArrival = -1;
    private long lastFinish;
    /** Held requests by the time their wait runs out, and those whose awaited prefill is done (sent at once). */
    private final PriorityQueue<TurnRequest> held = new PriorityQueue<>(
            Comparator.comparingLong(request -> request.placement.hold().untilNanos()));
    private final List<TurnRequest> released = new ArrayList<>();
    private long holds;
    private long holdsTimedOut;
    /** Events between replicas not yet applied, by the time they arrive (then the order they were sent in). */
    private final PriorityQueue<Delivery> bus = new PriorityQueue<>(
            Comparator.comparingLong(Delivery::atNanos).thenComparingLong(Delivery::sequence));
    private long busSent;
    private long busBytes;
    private long busDecisionEvents;
    private long gatewayTurn;
    private final SplittableRandom split;
    /** Whether the last replica has joined (always, unless it joins late). */
    private boolean lateJoined;
    /**
     * With a late replica, prompt and cached tokens of the requests that arrived after it joined, by [late or
     * the others][in its first 10 s or after].
     */
    private final long[][] joinPrompt = new long[2][2];
    private final long[][] joinCached = new long[2][2];
    /** The run's name in the report, and the log its answered requests go to. */
    private final String runName;
    private final RequestLog log;
    /** The exact view beside the tree; null unless {@code --routing-view} models it. */
    private final SimulatedExactView exactView;
    /** Sums of |predicted - reported cached tokens| / prompt tokens, by the exact view and the tree. */
    private double exactGapSum;
    private double treeGapSum;
    private long predictions;
    /** Whether the policy keeps a tree, whose predictions then count. */
    private boolean treeKnown;

    /** An event of one replica applied by another at {@code atNanos}. */
    private record Delivery(long atNanos, long sequence, Runnable apply) {
    }

    private Simulation(SimulationSettings settings, RequestShape shape, String policyName,
                       UnaryOperator<RoutingPolicy> watch, ForesightLabels foresight, String label, RequestLog log) {
        this.foresight = foresight;
        this.runName = runName(settings, label);
        this.log = log;
        this.settings = settings;
        this.shape = shape;
        this.fleet = settings.newFleet(() -> now);
        this.workers = fleet.routed;
        GatewayReplicas replicas = settings.replicas();
        this.gateways = new ArrayList<>(replicas.gateways());
        for (int r = 0; r < replicas.gateways(); r++) {
            // Replicas differ in their seeds, as gateways started apart do; the first is the single gateway.
            PolicyConfig config = r == 0 ? settings.policy() : settings.policy().withSeed(settings.policy().seed() + r);
            RoutingPolicy policy = watch.apply(PolicyFactory.create(policyName, config, () -> now));
            SimulatedGateway gateway = new SimulatedGateway(r, policy, new Placer(policy, () -> now), workers,
                    replicas.gateways());
            workers.forEach(worker -> policy.onWorkerCapacity(worker.id(), fleet.capacityPerWorker()));
            if (replicas.synced()) {
                gateway.replica(ModelReplica.attach(MODEL, policy, replicas.blockChars(),
                        event -> publish(gateway, event)));
            }
            gateways.add(gateway);
        }
        this.split = new SplittableRandom(settings.policy().seed());
        this.lateJoined = !replicas.lateJoin();
        this.requestsPerWorker = new long[workers.size()];
        this.promptTokensPerWorker = new long[workers.size()];
        this.bounds = new SequenceBounds(settings.pooledKvTokens(), settings.engine().pageSize());
        RoutingViews views = settings.views();
        this.exactView = views.modelled() ? new SimulatedExactView(views, workers) : null;
        if (exactView != null) {
            // Each change reaches the gateway's index the delay later, in the order the engine made it.
            fleet.publishKvEvents((worker, event) -> bus.add(new Delivery(now + views.eventDelayNanos(), busSent++,
                    () -> exactView.apply(worker, event))));
        }
    }

    /**
     * Replays {@code workload} through policy {@code policyName} (a name in {@link PolicyFactory#NAMES}).
     *
     * @throws IllegalArgumentException for an unknown policy, naming the valid ones
     */
    public static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload,
                                       String policyName) {
        return run(settings, shape, workload, policyName, RequestLog.NONE);
    }

    /**
     * As {@link #run(SimulationSettings, RequestShape, Workload, String)}, each answered request written to
     * {@code log}.
     */
    public static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload,
                                       String policyName, RequestLog log) {
        return run(settings, shape, workload, policyName, UnaryOperator.identity(), null, policyName, log);
    }

    /**
     * The foresight ceiling: {@code load_aware_affinity} with one-off placement, told each request's future by
     * {@code foresight} instead of predicting it. Labelled {@link #FORESIGHT_CEILING}.
     */
    public static SimulationResult runWithForesight(SimulationSettings settings, RequestShape shape,
                                                    Workload workload, ForesightLabels foresight, RequestLog log) {
        SimulationSettings oneOff = settings.withPolicy(settings.policy().withAffinity(
                settings.policy().affinity().withOneOffPlacement(true)));
        return run(oneOff, shape, workload, LoadAwareAffinityPolicy.NAME, UnaryOperator.identity(), foresight,
                FORESIGHT_CEILING, log);
    }

    /** As {@link #run(SimulationSettings, RequestShape, Workload, String)}, the policy seen through {@code watch}. */
    static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload, String policyName,
                                UnaryOperator<RoutingPolicy> watch) {
        return run(settings, shape, workload, policyName, watch, null, policyName, RequestLog.NONE);
    }

    private static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload,
                                        String policyName, UnaryOperator<RoutingPolicy> watch,
                                        ForesightLabels foresight, String label, RequestLog log) {
        long wallStart = System.nanoTime();
        Simulation simulation = new Simulation(settings, shape, policyName, watch, foresight, label, log);
        try (ArrivalQueue arrivals = new ArrivalQueue(workload)) {
            simulation.loop(arrivals);
        }
        return simulation.result(System.nanoTime() - wallStart);
    }

    /** The run's name in the report: the policy's label, then the replicas' setup and the view it routed on. */
    private static String runName(SimulationSettings settings, String label) {
        return label + settings.replicas().label() + settings.views().label();
    }

    /**
     * Takes events in time order until no turn is left to send and every engine is idle. Bounded: each pass runs
     * one engine step, one timer or one arrival, timers fire only while work remains, and the workload is finite.
     */
    private void loop(ArrivalQueue arrivals) {
        long nextMaintain = settings.maintainIntervalNanos();
        long nextSample = settings.loadSampleIntervalNanos() > 0 ? 0 : Long.MAX_VALUE;
        SimulatedFleet.Answers answers = new ClientSide(arrivals);
        while (true) {
            long engineAt = fleet.nextEventNanos();
            long arrivalAt = arrivals.nextNanos();
            long heldUntil = held.isEmpty() ? Long.MAX_VALUE : held.peek().placement.hold().untilNanos();
            long busAt = bus.isEmpty() ? Long.MAX_VALUE : bus.peek().atNanos();
            long joinAt = lateJoined ? Long.MAX_VALUE : settings.replicas().lateJoinNanos();
            if (engineAt == Long.MAX_VALUE && arrivalAt == Long.MAX_VALUE && heldUntil == Long.MAX_VALUE
                    && busAt == Long.MAX_VALUE) {
                return;
            }
            long timerAt = Math.min(Math.min(nextMaintain, nextSample), Math.min(Math.min(heldUntil, busAt), joinAt));
            if (engineAt <= arrivalAt && engineAt <= timerAt) {
                now = engineAt;
                fleet.advance(engineAt, answers);
            } else if (timerAt <= arrivalAt) {
                now = timerAt;
                while (!bus.isEmpty() && bus.peek().atNanos() == timerAt) {
                    bus.poll().apply().run();
                }
                if (timerAt == joinAt) {
                    join(gateways.getLast());
                }
                if (timerAt == heldUntil) {
                    holdsTimedOut++;
                    sendAfterHold(held.poll(), Placement.HoldEnding.TIMED_OUT);
                }
                if (timerAt == nextSample) {
                    fleet.sampleLoad();
                    nextSample += settings.loadSampleIntervalNanos();
                }
                if (timerAt == nextMaintain) {
                    gateways.forEach(gateway -> gateway.policy().maintain());
                    nextMaintain += settings.maintainIntervalNanos();
                }
            } else {
                now = arrivalAt;
                arrive(arrivals.poll());
            }
            // Any event can end an awaited prefill: a first token, or a request the engine refused outright.
            sendReleased();
            if (settings.replicas().synced()) {
                publishLoads();
            }
        }
    }

    /** The L4 split: the replica that takes the next request (of those that have joined). */
    private SimulatedGateway nextGateway() {
        int n = lateJoined ? gateways.size() : gateways.size() - 1;
        if (n == 1) {
            return gateways.getFirst();
        }
        return gateways.get(settings.replicas().randomSplit() ? split.nextInt(n) : (int) (gatewayTurn++ % n));
    }

    private boolean joined(SimulatedGateway gateway) {
        return lateJoined || gateway != gateways.getLast();
    }

    /** The late replica joins: it takes the first replica's snapshot and the loads as last published. */
    private void join(SimulatedGateway late) {
        lateJoined = true;
        if (!settings.replicas().synced()) {
            return;
        }
        gateways.getFirst().replica().snapshot().forEach(late.replica()::apply);
        for (SimulatedGateway other : gateways) {
            for (int w = 0; other != late && w < workers.size(); w++) {
                late.heard(other.index(), w, other.publishedCount(w));
            }
        }
    }

    /** A replica's event, delivered to every other replica after the bus delay; counted in bytes as it would travel. */
    private void publish(SimulatedGateway from, ReplicaEvent event) {
        busBytes += ReplicaCodec.encode(from.index(), List.of(event)).length;
        busDecisionEvents++;
        for (SimulatedGateway to : gateways) {
            if (to != from && joined(to)) {
                deliver(() -> to.replica().apply(event));
            }
        }
    }

    /** Each replica's count on each routed worker, to the others, when it changed. */
    private void publishLoads() {
        for (SimulatedGateway from : gateways) {
            for (int w = 0; w < workers.size(); w++) {
                int count = from.countToPublish(w);
                if (count < 0) {
                    continue;
                }
                int worker = w;
                for (SimulatedGateway to : gateways) {
                    if (to != from && joined(to)) {
                        deliver(() -> to.heard(from.index(), worker, count));
                    }
                }
            }
        }
    }

    private void deliver(Runnable apply) {
        bus.add(new Delivery(now + settings.replicas().busDelayNanos(), busSent++, apply));
    }

    /** What the client sees of its requests: their tokens and ends, and the next turns they start. */
    private final class ClientSide implements SimulatedFleet.Answers {
        private final ArrivalQueue arrivals;

        ClientSide(ArrivalQueue arrivals) {
            this.arrivals = arrivals;
        }

        @Override
        public void progressed(TurnRequest request, Progress progress) {
            if (progress.isFirstToken() || (progress.finished() && progress.completionTokens() == 0)) {
                request.ttftNanos = progress.atNanos() - request.arrivedNanos;
                recordTtft(request.ttftNanos);
            } else {
                interTokenGaps.recordValue(Math.min(LONGEST_GAP_NANOS, progress.atNanos() - request.lastTokenNanos));
            }
            request.lastTokenNanos = progress.atNanos();
        }

        @Override
        public void answered(TurnRequest request, Progress last) {
            countAfterJoin(request, last.promptTokens(), last.cachedTokens());
            logAnswered(request, last);
            if (exactView != null && last.promptTokens() > 0) {
                predictions++;
                exactGapSum += Math.abs(request.exactPrediction - last.cachedTokens()) / (double) last.promptTokens();
                treeGapSum += Math.abs(request.treePrediction - last.cachedTokens()) / (double) last.promptTokens();
            }
            lastFinish = Math.max(lastFinish, last.atNanos());
            if (request.arrival.hasNextTurn()) {
                String answer = EngineAnswer.text(request.promptTokens(), request.maxNewTokens,
                        settings.engine().seed());
                bounds.answered(request.promptTokens(), Tokenizer.encode(answer));
                arrivals.answered(request.arrival, answer, last.atNanos());
            }
        }

        private void logAnswered(TurnRequest request, Progress last) {
            if (!log.writes()) {
                return;
            }
            boolean modelled = exactView != null;
            log.answered(new RequestLog.Answered(runName, request.arrival.conversation().id(), request.arrival.turn(),
                    request.worker.id(), request.arrivedNanos / 1e6, request.ttftNanos / 1e6, last.promptTokens(),
                    last.cachedTokens(), request.branch,
                    modelled ? request.heldTokens : null, modelled ? request.exactPrediction : null,
                    modelled && treeKnown ? request.treePrediction : null));
        }

        @Override
        public void failed(TurnRequest request) {
            errors++;
        }
    }

    private void arrive(TurnArrival arrival) {
        requests++;
        if (firstArrival < 0) {
            firstArrival = now;
        }
        Turn turn = arrival.conversation().turns().get(arrival.turn());
        RenderedRequest rendered = shape.render(ChatHistory.messages(arrival.conversation(), arrival.turn(),
                arrival.answers()));
        int[] tokens = rendered.promptTokens();
        bounds.arrived(turn, tokens);

        String routingKey = settings.sendRoutingKey() ? arrival.conversation().id() : null;
        String text = rendered.routingText();
        // The gateway tokenizes as the engine does: the simulator has the engine's prompt tokens already.
        ExactOverlay overlay = exactView == null ? ExactOverlay.NONE : exactView.overlay(tokens);
        RoutingRequest routed = new RoutingRequest(text, routingKey, null, null,
                settings.views().routesExact() ? overlay : ExactOverlay.NONE,
                foresight == null ? Reuse.UNKNOWN : foresight.of(arrival.conversation().id(), arrival.turn()));
        SimulatedGateway gateway = nextGateway();
        PrefixMatch treeBefore = exactView == null ? null
                : gateway.policy().routingTree().map(tree -> tree.match(text)).orElse(null);
        Placer.Placed<SimulatedGateway.Target, SimulatedGateway.Target> outcome = gateway.placer().place(
                gateway.targets(), routed, Placer.Admission.always());
        branches.merge(outcome.decision().branch(), 1L, Long::sum);
        if (!outcome.found()) {
            errors++;
            return;
        }
        TurnRequest placed = new TurnRequest(arrival, routed, tokens, outcome, now, gateway.index());
        if (exactView != null) {
            String id = placed.worker.id();
            Decision decision = outcome.decision();
            placed.exactPrediction = decision.view() == RoutingView.EXACT ? decision.predictedTokens()
                    : overlay.cachedTokens(id);
            placed.treePrediction = treeBefore == null ? 0
                    : (int) ((long) treeBefore.matchedCharsFor(id) * tokens.length / Math.max(1, text.length()));
            treeKnown = treeBefore != null;
            placed.heldTokens = overlay.longestHeld();
        }
        Placement.Hold hold = placed.placement.hold();
        if (hold == null) {
            send(placed);
            return;
        }
        // Held as the gateway holds it: sent when the awaited prefill is done, or when the wait runs out.
        holds++;
        held.add(placed);
        hold.awaited().whenDone(() -> {
            if (held.remove(placed)) {
                released.add(placed);
            }
        });
    }

    /** Sends the held requests whose awaited prefill finished in the event just taken (a send may add more). */
    private void sendReleased() {
        for (int i = 0; i < released.size(); i++) {
            sendAfterHold(released.get(i), Placement.HoldEnding.RELEASED);
        }
        released.clear();
    }

    private void sendAfterHold(TurnRequest placed, Placement.HoldEnding ending) {
        placed.placement.endHold(ending);
        send(placed);
    }

    private void send(TurnRequest placed) {
        if (!fleet.send(placed, now)) {
            errors++;
            placed.placement.abandoned();
            return;
        }
        placed.placement.sent();
        requestsPerWorker[placed.worker.index()]++;
        promptTokensPerWorker[placed.worker.index()] += placed.promptTokens().length;
        placed.sent();
    }

    /** With a late replica: a finished request's tokens, by who placed it and when it arrived after the join. */
    private void countAfterJoin(TurnRequest request, int promptTokens, int cachedTokens) {
        long join = settings.replicas().lateJoinNanos();
        if (!settings.replicas().lateJoin() || request.arrivedNanos < join) {
            return;
        }
        int who = request.gateway == gateways.size() - 1 ? 0 : 1;
        int when = request.arrivedNanos < join + LATE_JOIN_WINDOW_NANOS ? 0 : 1;
        joinPrompt[who][when] += promptTokens;
        joinCached[who][when] += cachedTokens;
    }

    private SimulationResult.LateJoin lateJoin() {
        if (!settings.replicas().lateJoin()) {
            return null;
        }
        double[] rates = new double[4];
        for (int i = 0; i < 4; i++) {
            long prompt = joinPrompt[i % 2][i / 2];
            rates[i] = prompt == 0 ? 0 : (double) joinCached[i % 2][i / 2] / prompt;
        }
        return new SimulationResult.LateJoin(rates[0], rates[1], rates[2], rates[3]);
    }

    private void recordTtft(long nanos) {
        if (answered == ttft.length) {
            ttft = Arrays.copyOf(ttft, ttft.length * 2);
        }
        ttft[answered++] = nanos;
    }

    private SimulationResult result(long wallNanos) {
        SimulatedFleet.Totals totals = fleet.totals();
        long[] sortedTtft = Arrays.copyOf(ttft, answered);
        Arrays.sort(sortedTtft);
        long span = firstArrival < 0 ? 0 : Math.max(0, lastFinish - firstArrival);
        return new SimulationResult(runName, requests,
                errors, totals.promptTokens(), totals.cachedTokens(), totals.outputTokens(), sortedTtft, span,
                requestsPerWorker, promptTokensPerWorker, branches, bounds.result(), holds, holdsTimedOut, busBytes,
                busDecisionEvents, lateJoin(), wallNanos, InterTokenGaps.of(interTokenGaps), predictionGap());
    }

    /** Predicted against realised cache, when the exact view was modelled; null otherwise. */
    private PredictionGap predictionGap() {
        if (exactView == null) {
            return null;
        }
        long n = Math.max(1, predictions);
        return new PredictionGap(settings.views().routesExact() ? "exact" : "tree", exactGapSum / n,
                treeKnown ? treeGapSum / n : null);
    }
}
