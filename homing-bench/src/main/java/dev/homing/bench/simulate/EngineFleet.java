package dev.homing.bench.simulate;

import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Workers of regular engines: each worker a server of one engine or of several data-parallel ranks, each rank an
 * engine with its own cache and scheduler. A request placed on a server goes to its ranks in turn, as SGLang's
 * in-server round robin sends it. A fleet routed to ranks is one rank a worker, named as the gateway names a rank
 * ({@code url@rank}).
 */
final class EngineFleet extends SimulatedFleet {

    private final List<SimulatedWorker> workers = new ArrayList<>();
    /** Every rank's engine, workers in order and ranks in order within each: the order equal-time events are taken. */
    private final List<Engine> engines = new ArrayList<>();
    /** The requests sent to each engine and not yet finished, by the engine's request id. */
    private final List<Map<Long, TurnRequest>> sent = new ArrayList<>();
    private final int ranksPerWorker;
    private final int[] nextRank;
    private final long capacityPerWorker;

    private EngineFleet(List<String> ids, int ranksPerWorker, EngineConfig engine) {
        this.ranksPerWorker = ranksPerWorker;
        this.nextRank = new int[ids.size()];
        this.capacityPerWorker = (long) ranksPerWorker * engine.kvTokens();
        for (int i = 0; i < ids.size(); i++) {
            List<Engine> own = new ArrayList<>(ranksPerWorker);
            for (int r = 0; r < ranksPerWorker; r++) {
                own.add(new Engine(engine));
                sent.add(new HashMap<>());
            }
            engines.addAll(own);
            workers.add(new SimulatedWorker(i, ids.get(i),
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
    List<SimulatedWorker> routed() {
        return workers;
    }

    @Override
    long capacityPerWorker() {
        return capacityPerWorker;
    }

    @Override
    long nextEventNanos() {
        return nextEventNanos(engines);
    }

    @Override
    void advance(long atNanos, Answers answers) {
        int rank = earliest(engines);
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
    void sampleLoad() {
        workers.forEach(SimulatedWorker::sampleLoad);
    }

    @Override
    Totals totals() {
        long prompt = 0;
        long cached = 0;
        long output = 0;
        for (Engine engine : engines) {
            prompt += engine.stats().promptTokensTotal();
            cached += engine.stats().cachedTokensTotal();
            output += engine.stats().generationTokensTotal();
        }
        return new Totals(prompt, cached, output);
    }
}
