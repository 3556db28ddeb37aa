package dev.homing.bench.simulate;

import dev.homing.core.kv.KvEvent;
import dev.homing.core.placement.Placement;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.pd.DecodeBalancePolicy;
import dev.homing.sim.model.DecodeEngine;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.PrefillEngine;
import dev.homing.sim.model.RoomEngine;
import dev.homing.sim.model.RoomEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * Prefill workers and decode workers, as the gateway drives them in prefill/decode mode. The routing policy places
 * each request on a prefill worker; when it is sent, the decode leg is placed by {@link DecodeBalancePolicy} through
 * a placement of its own, and the request goes to both engines at once with a bootstrap room of its own (rooms are
 * numbered in order, so runs repeat). The decode engine registers the room at once (the simulated bootstrap exchange
 * takes no time).
 *
 * <ul>
 *   <li>The prefill engine's token is the routing policy's first token, and its usage (its own cache's hit) ends that
 *       placement: that is the leg whose cache routing aims at. The KV then crosses the decode engine's link.</li>
 *   <li>The decode engine's tokens are what the client receives: its first is the request's TTFT, its gaps the
 *       inter-token gaps; its end ends the decode placement and the request.</li>
 *   <li>A room that fails (a decode request whose prefill waited longer than the bootstrap timeout) fails its
 *       request; whichever placement is still open ends without a report.</li>
 * </ul>
 * Hit rates are the prefill engines' (a decode engine neither matches nor keeps a prefix); output tokens are the
 * decode engines'.
 */
final class DisaggregatedFleet extends SimulatedFleet<RoomEngine<?>> {

    /** A sent request's two legs. */
    private record Pair(TurnRequest request, Placement decode, DecodeEngine decodeEngine) {
    }

    // The routed workers are the prefill workers; the engines are the prefill engines, then the decode engines.
    private final List<SimulatedWorker> decodeWorkers = new ArrayList<>();
    /** The decode workers as the decode step places on them, counting its requests there. */
    private final List<SimulatedGateway.Target> decodeTargets = new ArrayList<>();
    private final List<PrefillEngine> prefill = new ArrayList<>();
    private final List<DecodeEngine> decode = new ArrayList<>();
    private final Placer decodePlacer;
    private final Map<Long, Pair> rooms = new HashMap<>();
    private long lastRoom;

    /** @param clock the simulation's virtual time, for the decode placements */
    DisaggregatedFleet(int prefillCount, int decodeCount, EngineConfig engine, DisaggregationConfig disaggregation,
                       PolicyConfig policy, LongSupplier clock) {
        super(engine.kvTokens());
        for (int i = 0; i < prefillCount; i++) {
            PrefillEngine role = new PrefillEngine(engine, disaggregation);
            prefill.add(role);
            routed.add(new SimulatedWorker(i, "http://prefill-" + i, () -> role.stats().usedTokens()));
        }
        for (int i = 0; i < decodeCount; i++) {
            DecodeEngine role = new DecodeEngine(engine, disaggregation);
            decode.add(role);
            SimulatedWorker worker = new SimulatedWorker(i, "http://decode-" + i, () -> role.stats().usedTokens());
            decodeWorkers.add(worker);
            decodeTargets.add(new SimulatedGateway.Target(worker));
        }
        engines.addAll(prefill);
        engines.addAll(decode);
        this.decodePlacer = new Placer(new DecodeBalancePolicy(policy), clock);
    }

    @Override
    void advance(long atNanos, Answers answers) {
        RoomEngine<?> engine = engines.get(earliest());
        boolean prefillSide = engine instanceof PrefillEngine;
        for (RoomEvent event : engine.advanceTo(atNanos)) {
            Pair pair = rooms.get(event.room());
            if (pair == null) {
                continue;
            }
            if (prefillSide) {
                onPrefill(pair, event);
            } else {
                onDecode(pair, event, answers);
            }
        }
    }

    @Override
    boolean send(TurnRequest request, long nowNanos) {
        Placer.Placed<SimulatedGateway.Target, SimulatedGateway.Target> decodeLeg = decodePlacer.place(decodeTargets,
                request.routing, Placer.Admission.always());
        if (!decodeLeg.found()) {
            return false;
        }
        long room = ++lastRoom;
        GenerationRequest generation = new GenerationRequest(request.promptTokens(), request.maxNewTokens);
        PrefillEngine prefillEngine = prefill.get(request.worker.index());
        DecodeEngine decodeEngine = decode.get(decodeLeg.worker().worker().index());
        try {
            prefillEngine.submit(room, generation, nowNanos);
            try {
                decodeEngine.submit(room, generation, nowNanos);
            } catch (IllegalArgumentException refused) {
                prefillEngine.abort(room, nowNanos);
                throw refused;
            }
        } catch (IllegalArgumentException refused) {
            decodeLeg.placement().abandoned();
            return false;
        }
        prefillEngine.register(room, nowNanos);
        decodeLeg.placement().sent();
        rooms.put(room, new Pair(request, decodeLeg.placement(), decodeEngine));
        return true;
    }

    /** The prefill engines' changes, each told as its routed worker's (a decode engine's cache is never matched). */
    @Override
    void publishKvEvents(BiConsumer<SimulatedWorker, KvEvent> sink) {
        for (int i = 0; i < prefill.size(); i++) {
            SimulatedWorker worker = routed.get(i);
            prefill.get(i).publishKvEvents(event -> sink.accept(worker, event));
        }
    }

    @Override
    void sampleLoad() {
        routed.forEach(SimulatedWorker::sampleLoad);
        decodeWorkers.forEach(SimulatedWorker::sampleLoad);
    }

    @Override
    Totals totals() {
        return Totals.of(prefill.stream().map(RoomEngine::stats).toList(),
                decode.stream().map(RoomEngine::stats).toList());
    }

    private void onPrefill(Pair pair, RoomEvent event) {
        Placement placement = pair.request().placement;
        switch (event) {
            case RoomEvent.Tokens tokens -> {
                placement.firstToken();
                placement.completed(tokens.progress().promptTokens(), tokens.progress().cachedTokens());
                pair.decodeEngine().kvReady(event.room(), tokens.progress().cachedTokens(),
                        tokens.progress().atNanos());
            }
            case RoomEvent.Failed failed -> {
                placement.endedWithoutReport();
                pair.decodeEngine().fail(event.room(), failed.reason(), failed.atNanos());
            }
        }
    }

    private void onDecode(Pair pair, RoomEvent event, Answers answers) {
        switch (event) {
            case RoomEvent.Tokens tokens -> {
                answers.progressed(pair.request(), tokens.progress());
                if (tokens.progress().isFirstToken()) {
                    pair.decode().firstToken();
                }
                if (tokens.progress().finished()) {
                    rooms.remove(event.room());
                    pair.decode().completed(tokens.progress().promptTokens(), tokens.progress().cachedTokens());
                    answers.answered(pair.request(), tokens.progress());
                }
            }
            case RoomEvent.Failed failed -> {
                rooms.remove(event.room());
                pair.decode().endedWithoutReport();
                Placement routing = pair.request().placement;
                if (routing.phase() != Placement.Phase.ENDED) {
                    prefill.get(pair.request().worker.index()).abort(event.room(), failed.atNanos());
                    routing.endedWithoutReport();
                }
                answers.failed(pair.request());
            }
        }
    }
}
