package dev.homing.bench.simulate;

import dev.homing.bench.simulate.ArrivalQueue.TurnArrival;
import dev.homing.bench.simulate.RequestShape.RenderedRequest;
import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.Tokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * One workload through one routing policy in front of simulated engines, in simulated time: a discrete-event loop
 * over the very {@link Engine} objects the HTTP simulated engine drives in real time, and the very policy objects the
 * gateway runs.
 *
 * <p>The simulated gateway behaves as the live one does:
 * <ol>
 *   <li>A turn arrives at its time ({@link ArrivalQueue}); it is rendered as the client would send it
 *       ({@link RequestShape}), which gives the routing text and the engine's prompt tokens.</li>
 *   <li>The policy sees one {@link WorkerView} per engine: {@code inFlight} counts requests sent to that engine and
 *       not yet finished; {@code reportedLoad} is the engine's KV tokens in use at the last load sample (every
 *       {@code loadSampleIntervalNanos}), or unknown when sampling is off.</li>
 *   <li>The request is submitted to the chosen engine at its arrival time. TTFT is the first token's time minus the
 *       arrival; when the answer finishes, the conversation's next turn (if any) is queued with the engine's own
 *       answer text ({@link EngineAnswer}) in its history. A turn that no worker took ends its conversation.</li>
 *   <li>{@link RoutingPolicy#maintain()} runs every {@code maintainIntervalNanos} of simulated time.</li>
 * </ol>
 * The cache bounds see the same requests at the same moments ({@link SequenceBounds}).
 * Events are taken strictly in time order; at equal times engine steps come first, then timers, then arrivals, so
 * an arrival sees every answer that finished at its instant.
 *
 * <p>Not thread-safe; single use: {@link #run} builds one and runs it to the end.
 */
public final class Simulation {

    private final SimulationSettings settings;
    private final RequestShape shape;
    private final RoutingPolicy policy;
    private final Engine[] engines;
    private final String[] workerIds;
    private final int[] inFlight;
    private final long[] reportedLoad;
    private final List<Map<Long, Sent>> sent;
    private final SequenceBounds bounds;
    private final Map<String, Long> branches = new TreeMap<>();
    private final long[] requestsPerWorker;
    private final long[] promptTokensPerWorker;
    private long[] ttft = new long[1024];
    private int answered;
    private long requests;
    private long errors;
    private long now;
    private long firstArrival = -1;
    private long lastFinish;
    /** Held requests by the time their wait runs out, and those whose awaited prefill is done (sent at once). */
    private final PriorityQueue<Placed> held = new PriorityQueue<>(Comparator.comparingLong(Placed::untilNanos));
    private final List<Placed> released = new ArrayList<>();
    private long holds;
    private long holdsTimedOut;

    /** A request the gateway has sent and not yet seen finish; TTFT counts from its arrival at the gateway. */
    private record Sent(TurnArrival arrival, int[] promptTokens, int maxNewTokens, RoutingRequest routed,
                        Decision decision, long arrivedNanos) {
    }

    /** A routed request not yet sent: new at its arrival, or held for an earlier request's prefill (until). */
    private record Placed(TurnArrival arrival, int[] tokens, RoutingRequest routed, Decision decision,
                          long arrivedNanos, long untilNanos) {
    }

    private Simulation(SimulationSettings settings, RequestShape shape, String policyName) {
        this.settings = settings;
        this.shape = shape;
        this.policy = PolicyFactory.create(policyName, settings.policy(), () -> now);
        int n = settings.workers();
        this.engines = new Engine[n];
        this.workerIds = new String[n];
        this.sent = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            engines[i] = new Engine(settings.engine());
            workerIds[i] = "http://worker-" + i;
            sent.add(new HashMap<>());
            policy.onWorkerCapacity(workerIds[i], settings.engine().kvTokens());
        }
        this.inFlight = new int[n];
        this.reportedLoad = new long[n];
        Arrays.fill(reportedLoad, WorkerView.UNKNOWN_LOAD);
        this.requestsPerWorker = new long[n];
        this.promptTokensPerWorker = new long[n];
        this.bounds = new SequenceBounds(settings.pooledKvTokens(), settings.engine().pageSize());
    }

    /**
     * Replays {@code workload} through policy {@code policyName} (a name in {@link PolicyFactory#NAMES}).
     *
     * @throws IllegalArgumentException for an unknown policy, naming the valid ones
     */
    public static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload,
                                       String policyName) {
        long wallStart = System.nanoTime();
        Simulation simulation = new Simulation(settings, shape, policyName);
        try (ArrivalQueue arrivals = new ArrivalQueue(workload)) {
            simulation.loop(arrivals);
        }
        return simulation.result(policyName, System.nanoTime() - wallStart);
    }

    /**
     * Takes events in time order until no turn is left to send and every engine is idle. Bounded: each pass runs
     * one engine step, one timer or one arrival, timers fire only while work remains, and the workload is finite.
     */
    private void loop(ArrivalQueue arrivals) {
        long nextMaintain = settings.maintainIntervalNanos();
        long nextSample = settings.loadSampleIntervalNanos() > 0 ? 0 : Long.MAX_VALUE;
        while (true) {
            int engine = earliestEngine();
            long engineAt = engine < 0 ? Long.MAX_VALUE : engines[engine].nextEventNanos();
            long arrivalAt = arrivals.nextNanos();
            long heldUntil = held.isEmpty() ? Long.MAX_VALUE : held.peek().untilNanos();
            if (engineAt == Long.MAX_VALUE && arrivalAt == Long.MAX_VALUE && heldUntil == Long.MAX_VALUE) {
                return;
            }
            long timerAt = Math.min(Math.min(nextMaintain, nextSample), heldUntil);
            if (engineAt <= arrivalAt && engineAt <= timerAt) {
                now = engineAt;
                deliver(engine, engines[engine].advanceTo(engineAt), arrivals);
            } else if (timerAt <= arrivalAt) {
                now = timerAt;
                if (timerAt == heldUntil) {
                    holdsTimedOut++;
                    send(held.poll());
                }
                if (timerAt == nextSample) {
                    sampleLoads();
                    nextSample += settings.loadSampleIntervalNanos();
                }
                if (timerAt == nextMaintain) {
                    policy.maintain();
                    nextMaintain += settings.maintainIntervalNanos();
                }
            } else {
                now = arrivalAt;
                arrive(arrivals.poll());
            }
            // Any event can end an awaited prefill: a first token, or a request the engine refused outright.
            sendReleased();
        }
    }

    private int earliestEngine() {
        int earliest = -1;
        long at = Long.MAX_VALUE;
        for (int i = 0; i < engines.length; i++) {
            long next = engines[i].nextEventNanos();
            if (next < at) {
                at = next;
                earliest = i;
            }
        }
        return earliest;
    }

    private void deliver(int worker, List<Progress> progress, ArrivalQueue arrivals) {
        for (Progress p : progress) {
            Sent request = p.finished() ? sent.get(worker).remove(p.requestId()) : sent.get(worker).get(p.requestId());
            if (p.isFirstToken() || (p.finished() && p.completionTokens() == 0)) {
                recordTtft(p.atNanos() - request.arrivedNanos());
            }
            if (p.isFirstToken()) {
                policy.onFirstToken(workerIds[worker], request.decision());
            }
            if (!p.finished()) {
                continue;
            }
            policy.onCompleted(workerIds[worker], request.routed(), request.decision(),
                    new EngineReport(p.promptTokens(), p.cachedTokens(), p.isFirstToken() || p.completionTokens() > 1));
            inFlight[worker]--;
            lastFinish = Math.max(lastFinish, p.atNanos());
            if (request.arrival().hasNextTurn()) {
                String answer = EngineAnswer.text(request.promptTokens(), request.maxNewTokens(),
                        settings.engine().seed());
                bounds.answered(request.promptTokens(), Tokenizer.encode(answer));
                arrivals.answered(request.arrival(), answer, p.atNanos());
            }
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
        RoutingRequest routed = new RoutingRequest(rendered.routingText(), routingKey, null, null);
        Decision decision = policy.select(views(), routed);
        branches.merge(decision.branch(), 1L, Long::sum);
        if (!decision.found()) {
            errors++;
            return;
        }
        Decision.Hold hold = decision.hold();
        if (hold == null || hold.awaited().isDone()) {
            send(new Placed(arrival, tokens, routed, decision, now, now));
            return;
        }
        // Held as the gateway holds it: sent when the awaited prefill is done, or when the wait runs out.
        holds++;
        Placed placed = new Placed(arrival, tokens, routed, decision, now, now + hold.maxNanos());
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
            send(released.get(i));
        }
        released.clear();
    }

    private void send(Placed placed) {
        int worker = placed.decision().workerIndex();
        Turn turn = placed.arrival().conversation().turns().get(placed.arrival().turn());
        long id;
        try {
            id = engines[worker].submit(new GenerationRequest(placed.tokens(), turn.maxOutputTokens()), now);
        } catch (IllegalArgumentException refused) {
            errors++;
            policy.onCompleted(workerIds[worker], placed.routed(), placed.decision(), EngineReport.unknown(false));
            return;
        }
        inFlight[worker]++;
        requestsPerWorker[worker]++;
        promptTokensPerWorker[worker] += placed.tokens().length;
        // Only a conversation with a next turn needs the prompt again, to compute the answer text.
        TurnArrival arrival = placed.arrival();
        sent.get(worker).put(id, new Sent(arrival, arrival.hasNextTurn() ? placed.tokens() : null,
                turn.maxOutputTokens(), placed.routed(), placed.decision(), placed.arrivedNanos()));
    }

    private List<WorkerView> views() {
        List<WorkerView> views = new ArrayList<>(engines.length);
        for (int i = 0; i < engines.length; i++) {
            views.add(new WorkerView(workerIds[i], true, inFlight[i], reportedLoad[i]));
        }
        return views;
    }

    private void sampleLoads() {
        for (int i = 0; i < engines.length; i++) {
            reportedLoad[i] = engines[i].stats().usedTokens();
        }
    }

    private void recordTtft(long nanos) {
        if (answered == ttft.length) {
            ttft = Arrays.copyOf(ttft, ttft.length * 2);
        }
        ttft[answered++] = nanos;
    }

    private SimulationResult result(String policyName, long wallNanos) {
        long prompt = 0;
        long cached = 0;
        long output = 0;
        for (Engine engine : engines) {
            EngineStats stats = engine.stats();
            prompt += stats.promptTokensTotal();
            cached += stats.cachedTokensTotal();
            output += stats.generationTokensTotal();
        }
        long[] sortedTtft = Arrays.copyOf(ttft, answered);
        Arrays.sort(sortedTtft);
        long span = firstArrival < 0 ? 0 : Math.max(0, lastFinish - firstArrival);
        return new SimulationResult(policyName, requests, errors, prompt, cached, output, sortedTtft, span,
                requestsPerWorker, promptTokensPerWorker, branches, bounds.result(), holds, holdsTimedOut, wallNanos);
    }
}
