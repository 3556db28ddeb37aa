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
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.Tokenizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
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
 * the policy places on. Events are taken strictly in time order; at equal times engine steps come first (in the
 * fleet's order), then timers, then arrivals, so an arrival sees every answer that finished at its instant.
 *
 * <p>Invariants: simulated time never goes back, since each turn of the loop takes the earliest event left; every
 * placement ends exactly once (completed by its engine, or unsent), which its {@link Placement} checks.
 *
 * <p>Not thread-safe; single use: {@link #run} builds one and runs it to the end.
 */
public final class Simulation {

    /** Inter-token gaps are kept to three significant digits, up to an hour. */
    private static final long LONGEST_GAP_NANOS = 3_600_000_000_000L;

    private final SimulationSettings settings;
    private final RequestShape shape;
    private final RoutingPolicy policy;
    private final Placer placer;
    private final SimulatedFleet<?> fleet;
    private final List<SimulatedWorker> workers;
    private final SequenceBounds bounds;
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

    private Simulation(SimulationSettings settings, RequestShape shape, String policyName,
                       UnaryOperator<RoutingPolicy> watch) {
        this.settings = settings;
        this.shape = shape;
        this.policy = watch.apply(PolicyFactory.create(policyName, settings.policy(), () -> now));
        this.placer = new Placer(policy, () -> now);
        this.fleet = settings.newFleet(() -> now);
        this.workers = fleet.routed;
        for (SimulatedWorker worker : workers) {
            policy.onWorkerCapacity(worker.id(), fleet.capacityPerWorker());
        }
        this.requestsPerWorker = new long[workers.size()];
        this.promptTokensPerWorker = new long[workers.size()];
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
        SimulatedFleet.Answers answers = new ClientSide(arrivals);
        while (true) {
            long engineAt = fleet.nextEventNanos();
            long arrivalAt = arrivals.nextNanos();
            long heldUntil = held.isEmpty() ? Long.MAX_VALUE : held.peek().placement.hold().untilNanos();
            if (engineAt == Long.MAX_VALUE && arrivalAt == Long.MAX_VALUE && heldUntil == Long.MAX_VALUE) {
                return;
            }
            long timerAt = Math.min(Math.min(nextMaintain, nextSample), heldUntil);
            if (engineAt <= arrivalAt && engineAt <= timerAt) {
                now = engineAt;
                fleet.advance(engineAt, answers);
            } else if (timerAt <= arrivalAt) {
                now = timerAt;
                if (timerAt == heldUntil) {
                    holdsTimedOut++;
                    sendAfterHold(held.poll(), Placement.HoldEnding.TIMED_OUT);
                }
                if (timerAt == nextSample) {
                    fleet.sampleLoad();
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

    /** What the client sees of its requests: their tokens and ends, and the next turns they start. */
    private final class ClientSide implements SimulatedFleet.Answers {
        private final ArrivalQueue arrivals;

        ClientSide(ArrivalQueue arrivals) {
            this.arrivals = arrivals;
        }

        @Override
        public void progressed(TurnRequest request, Progress progress) {
            if (progress.isFirstToken() || (progress.finished() && progress.completionTokens() == 0)) {
                recordTtft(progress.atNanos() - request.arrivedNanos);
            } else {
                interTokenGaps.recordValue(Math.min(LONGEST_GAP_NANOS, progress.atNanos() - request.lastTokenNanos));
            }
            request.lastTokenNanos = progress.atNanos();
        }

        @Override
        public void answered(TurnRequest request, Progress last) {
            lastFinish = Math.max(lastFinish, last.atNanos());
            if (request.arrival.hasNextTurn()) {
                String answer = EngineAnswer.text(request.promptTokens(), request.maxNewTokens,
                        settings.engine().seed());
                bounds.answered(request.promptTokens(), Tokenizer.encode(answer));
                arrivals.answered(request.arrival, answer, last.atNanos());
            }
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
        RoutingRequest routed = new RoutingRequest(rendered.routingText(), routingKey, null, null);
        Placer.Placed<SimulatedWorker, SimulatedWorker> outcome = placer.place(workers, routed,
                Placer.Admission.always());
        branches.merge(outcome.decision().branch(), 1L, Long::sum);
        if (!outcome.found()) {
            errors++;
            return;
        }
        TurnRequest placed = new TurnRequest(arrival, routed, tokens, turn.maxOutputTokens(), outcome.worker(),
                outcome.placement(), now);
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

    private void recordTtft(long nanos) {
        if (answered == ttft.length) {
            ttft = Arrays.copyOf(ttft, ttft.length * 2);
        }
        ttft[answered++] = nanos;
    }

    private SimulationResult result(String policyName, long wallNanos) {
        SimulatedFleet.Totals totals = fleet.totals();
        long[] sortedTtft = Arrays.copyOf(ttft, answered);
        Arrays.sort(sortedTtft);
        long span = firstArrival < 0 ? 0 : Math.max(0, lastFinish - firstArrival);
        return new SimulationResult(policyName, requests, errors, totals.promptTokens(), totals.cachedTokens(),
                totals.outputTokens(), sortedTtft, span, requestsPerWorker, promptTokensPerWorker, branches,
                bounds.result(), holds, holdsTimedOut, wallNanos, InterTokenGaps.of(interTokenGaps));
    }
}
