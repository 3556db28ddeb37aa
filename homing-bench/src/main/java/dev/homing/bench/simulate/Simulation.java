package dev.homing.bench.simulate;

import dev.homing.bench.simulate.ArrivalQueue.TurnArrival;
import dev.homing.bench.simulate.RequestShape.RenderedRequest;
import dev.homing.bench.workload.ChatHistory;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
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
import java.util.function.UnaryOperator;

/**
 * One workload through one routing policy in front of simulated engines, in simulated time: a discrete-event loop
 * over the very {@link dev.homing.sim.model.Engine} objects the HTTP simulated engine drives in real time, and the
 * very policy objects and placement protocol ({@link Placer}, {@link Placement}) the gateway runs.
 *
 * <p>The simulated gateway behaves as the live one does:
 * <ol>
 *   <li>A turn arrives at its time ({@link ArrivalQueue}); it is rendered as the client would send it
 *       ({@link RequestShape}), which gives the routing text and the engine's prompt tokens.</li>
 *   <li>It is placed as the gateway places it ({@link Placer}; every engine is available and admits every request).
 *       The policy sees one view per engine: {@code inFlight} counts requests placed there and not yet finished
 *       (a held request counts from its placement); {@code reportedLoad} is the engine's KV tokens in use at the last
 *       load sample (every {@code loadSampleIntervalNanos}), or unknown when sampling is off.</li>
 *   <li>A placement held for an earlier request's prefill is sent when that prefill is done or its wait runs out;
 *       any other is submitted to its engine at its arrival time. An engine that refuses a request (a prompt larger
 *       than its KV pool) is an error, and the placement ends unsent.</li>
 *   <li>TTFT is the first token's time minus the arrival; when the answer finishes, the conversation's next turn (if
 *       any) is queued with the engine's own answer text ({@link EngineAnswer}) in its history. A turn that no worker
 *       took ends its conversation.</li>
 *   <li>{@link RoutingPolicy#maintain()} runs every {@code maintainIntervalNanos} of simulated time.</li>
 * </ol>
 * The cache bounds see the same requests at the same moments ({@link SequenceBounds}).
 * Events are taken strictly in time order; at equal times engine steps come first, then timers, then arrivals, so
 * an arrival sees every answer that finished at its instant.
 *
 * <p>Invariants: simulated time never goes back, since each turn of the loop takes the earliest event left; every
 * placement ends exactly once (completed by its engine, or unsent), which its {@link Placement} checks.
 *
 * <p>Not thread-safe; single use: {@link #run} builds one and runs it to the end.
 */
public final class Simulation {

    private final SimulationSettings settings;
    private final RequestShape shape;
    private final RoutingPolicy policy;
    private final Placer placer;
    private final List<SimulatedWorker> workers;
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
    private final PriorityQueue<Placed> held = new PriorityQueue<>(
            Comparator.comparingLong(placed -> placed.placement().hold().untilNanos()));
    private final List<Placed> released = new ArrayList<>();
    private long holds;
    private long holdsTimedOut;

    /** A request the gateway has sent and not yet seen finish; TTFT counts from its arrival at the gateway. */
    private record Sent(TurnArrival arrival, int[] promptTokens, int maxNewTokens, Placement placement,
                        long arrivedNanos) {
    }

    /** A placed request not yet sent: new at its arrival, or held for an earlier request's prefill. */
    private record Placed(TurnArrival arrival, int[] tokens, SimulatedWorker worker, Placement placement,
                          long arrivedNanos) {
    }

    private Simulation(SimulationSettings settings, RequestShape shape, String policyName,
                       UnaryOperator<RoutingPolicy> watch) {
        this.settings = settings;
        this.shape = shape;
        this.policy = watch.apply(PolicyFactory.create(policyName, settings.policy(), () -> now));
        this.placer = new Placer(policy, () -> now);
        int n = settings.workers();
        this.workers = new ArrayList<>(n);
        this.sent = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            SimulatedWorker worker = new SimulatedWorker(i, settings.engine());
            workers.add(worker);
            sent.add(new HashMap<>());
            policy.onWorkerCapacity(worker.id(), settings.engine().kvTokens());
        }
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
        return run(settings, shape, workload, policyName, UnaryOperator.identity());
    }

    /** As {@link #run(SimulationSettings, RequestShape, Workload, String)}, the policy seen through {@code watch}. */
    static SimulationResult run(SimulationSettings settings, RequestShape shape, Workload workload, String policyName,
                                UnaryOperator<RoutingPolicy> watch) {
        long wallStart = System.nanoTime();
        Simulation simulation = new Simulation(settings, shape, policyName, watch);
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
            SimulatedWorker engine = earliestEngine();
            long engineAt = engine == null ? Long.MAX_VALUE : engine.engine().nextEventNanos();
            long arrivalAt = arrivals.nextNanos();
            long heldUntil = held.isEmpty() ? Long.MAX_VALUE : held.peek().placement().hold().untilNanos();
            if (engineAt == Long.MAX_VALUE && arrivalAt == Long.MAX_VALUE && heldUntil == Long.MAX_VALUE) {
                return;
            }
            long timerAt = Math.min(Math.min(nextMaintain, nextSample), heldUntil);
            if (engineAt <= arrivalAt && engineAt <= timerAt) {
                now = engineAt;
                deliver(engine, engine.engine().advanceTo(engineAt), arrivals);
            } else if (timerAt <= arrivalAt) {
                now = timerAt;
                if (timerAt == heldUntil) {
                    holdsTimedOut++;
                    sendAfterHold(held.poll(), Placement.HoldEnding.TIMED_OUT);
                }
                if (timerAt == nextSample) {
                    workers.forEach(SimulatedWorker::sampleLoad);
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

    private SimulatedWorker earliestEngine() {
        SimulatedWorker earliest = null;
        long at = Long.MAX_VALUE;
        for (SimulatedWorker worker : workers) {
            long next = worker.engine().nextEventNanos();
            if (next < at) {
                at = next;
                earliest = worker;
            }
        }
        return earliest;
    }

    private void deliver(SimulatedWorker worker, List<Progress> progress, ArrivalQueue arrivals) {
        Map<Long, Sent> onWorker = sent.get(worker.index());
        for (Progress p : progress) {
            Sent request = p.finished() ? onWorker.remove(p.requestId()) : onWorker.get(p.requestId());
            if (p.isFirstToken() || (p.finished() && p.completionTokens() == 0)) {
                recordTtft(p.atNanos() - request.arrivedNanos());
            }
            if (p.isFirstToken()) {
                request.placement().firstToken();
            }
            if (!p.finished()) {
                continue;
            }
            request.placement().completed(p.promptTokens(), p.cachedTokens());
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
        Placer.Placed<SimulatedWorker, SimulatedWorker> outcome = placer.place(workers, routed,
                Placer.Admission.always());
        branches.merge(outcome.decision().branch(), 1L, Long::sum);
        if (!outcome.found()) {
            errors++;
            return;
        }
        Placed placed = new Placed(arrival, tokens, outcome.worker(), outcome.placement(), now);
        Placement.Hold hold = placed.placement().hold();
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

    private void sendAfterHold(Placed placed, Placement.HoldEnding ending) {
        placed.placement().endHold(ending);
        send(placed);
    }

    private void send(Placed placed) {
        SimulatedWorker worker = placed.worker();
        Turn turn = placed.arrival().conversation().turns().get(placed.arrival().turn());
        long id;
        try {
            id = worker.engine().submit(new GenerationRequest(placed.tokens(), turn.maxOutputTokens()), now);
        } catch (IllegalArgumentException refused) {
            errors++;
            placed.placement().abandoned();
            return;
        }
        placed.placement().sent();
        requestsPerWorker[worker.index()]++;
        promptTokensPerWorker[worker.index()] += placed.tokens().length;
        // Only a conversation with a next turn needs the prompt again, to compute the answer text.
        TurnArrival arrival = placed.arrival();
        sent.get(worker.index()).put(id, new Sent(arrival, arrival.hasNextTurn() ? placed.tokens() : null,
                turn.maxOutputTokens(), placed.placement(), placed.arrivedNanos()));
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
        for (SimulatedWorker worker : workers) {
            EngineStats stats = worker.engine().stats();
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
