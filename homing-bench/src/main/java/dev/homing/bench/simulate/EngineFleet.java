package dev.homing.bench.simulate;

import dev.homing.core.kv.KvEvent;
import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * Workers of regular engines: each worker a server of one engine or of several data-parallel ranks, each rank an
 * engine with its own cache and scheduler. A request placed on a server goes to its ranks in turn, as SGLang's
 * in-server round robin sends it. A fleet routed to ranks is one rank a worker, named as the gateway names a rank
 * ({@code url@rank}).
 */
final class EngineFleet extends SimulatedFleet<Engine> {

    // The engines are every rank's: workers in order and ranks in order within each.
    /** The requests sent to each engine and not yet finished, by the engine's request id. */
    private final List<Map<Long, TurnRequest>> sent = new ArrayList<>();
    private final int ranksPerWorker;
    private final int[] nextRank;

    private EngineFleet(List<String> ids, int ranksPerWorker, EngineConfig engine) {
        super((long) ranksPerWorker * engine.kvTokens());
        this.ranksPerWorker = ranksPerWorker;
        this.nextRank = new int[ids.size()];
        for (int i = 0; i < ids.size(); i++) {
            List<Engine> own = new ArrayList<>(ranksPerWorker);
            for (int r = 0; r < ranksPerWorker; r++) {
                own.add(new Engine(engine));
                sent.add(new HashMap<>());
            }
            engines.addAll(own);
            routed.add(new SimulatedWorker(i, ids.get(i),
                    () -> own.stream().mapToLong(rank -> rank.stats().usedTokens()).sum()));
        }
    }

    /** {@code count} workers of one engine each. */
    static EngineFleet regular(int count, EngineConfig engine) {
        return new EngineFleet(ids(count, 1, false), 1, engine);
    }

    /** {@code servers} workers of {@code dpSize} ranks each, behind each server's round robin. */
    static EngineFleet dataParallel(int servers, int dpSize, EngineConfig engine) {
        return new EngineFleet(ids(servers, 1, false), dpSize, engine);
    }

    /** The ranks of {@code servers} servers of {@code dpSize} ranks, each its own worker. */
    static EngineFleet rankAware(int servers, int dpSize, EngineConfig engine) {
        return new EngineFleet(ids(servers, dpSize, true), 1, engine);
    }

    private static List<String> ids(int servers, int ranks, boolean withRank) {
        List<String> ids = new ArrayList<>(servers * ranks);
        for (int s = 0; s < servers; s++) {
            for (int r = 0; r < ranks; r++) {
                ids.add("http://worker-" + s + (withRank ? "@" + r : ""));
            }
        }
        return ids;
    }

    @Override
    void advance(long atNanos, Answers answers) {
        int rank = earliest();
        Map<Long, TurnRequest> onRank = sent.get(rank);
        for (Progress p : engines.get(rank).advanceTo(atNanos)) {
            TurnRequest request = p.finished() ? onRank.remove(p.requestId()) : onRank.get(p.requestId());
            answers.progressed(request, p);
            if (p.isFirstToken()) {
                request.placement.firstToken();
            }
            if (p.finished()) {
                request.placement.completed(p.promptTokens(), p.cachedTokens());
                answers.answered(request, p);
            }
        }
    }

    @Override
    boolean send(TurnRequest request, long nowNanos) {
        int worker = request.worker.index();
        int rank = worker * ranksPerWorker + nextRank[worker];
        long id;
        try {
            id = engines.get(rank).submit(new GenerationRequest(request.promptTokens(), request.maxNewTokens),
                    nowNanos);
        } catch (IllegalArgumentException refused) {
            return false;
        }
        nextRank[worker] = (nextRank[worker] + 1) % ranksPerWorker;
        sent.get(rank).put(id, request);
        return true;
    }

    @Override
    void publishKvEvents(BiConsumer<SimulatedWorker, KvEvent> sink) {
        if (ranksPerWorker != 1) {
            super.publishKvEvents(sink);
        }
        for (int i = 0; i < engines.size(); i++) {
            SimulatedWorker worker = routed.get(i);
            engines.get(i).publishKvEvents(event -> sink.accept(worker, event));
        }
    }

    @Override
    void sampleLoad() {
        routed.forEach(SimulatedWorker::sampleLoad);
    }

    @Override
    Totals totals() {
        List<EngineStats> stats = engines.stream().map(Engine::stats).toList();
        return Totals.of(stats, stats);
    }
}
