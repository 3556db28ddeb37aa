package dev.homing.sim.http;

import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.KvEventSink;
import dev.homing.sim.model.Progress;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An engine serving whole requests on {@code --dp-size} data-parallel ranks behind one port, each rank an
 * {@link Engine} with its own cache and scheduler (one rank without data parallelism). A request's
 * {@code data_parallel_rank} picks its rank; without one, the ranks take requests in turn, as SGLang's in-server
 * round robin gives them; a rank out of range is a 400. Bootstrap fields are ignored, as by an SGLang engine that is
 * not disaggregated.
 */
final class RankedEngines implements InferenceBackend {
    private final List<ModelDriver<Engine, Progress>> ranks = new ArrayList<>();
    /** The prompt of {@code /health_generate}'s one-token generation: "ping", in the engine's tokens. */
    private final int[] pingPrompt;
    private int nextRank;

    /** @param kvEvents each rank's KV event sink, in rank order; empty when the engine publishes none */
    RankedEngines(Vertx vertx, EngineConfig engine, int dpSize, double timeScale, Consumer<Progress> observer,
                  int[] pingPrompt, List<? extends KvEventSink> kvEvents) {
        this.pingPrompt = pingPrompt;
        long start = System.nanoTime();
        for (int i = 0; i < dpSize; i++) {
            Engine rank = new Engine(engine);
            if (!kvEvents.isEmpty()) {
                rank.publishKvEvents(kvEvents.get(i));
            }
            ranks.add(new ModelDriver<>(vertx, rank, timeScale, start, observer, Progress::requestId,
                Progress::finished));
        }
    }

    @Override
    public Runnable start(InferenceRequest item, String rid, Listener listener) {
        ModelDriver<Engine, Progress> rank = ranks.get(rank(item.dataParallelRank()));
        long id = submit(rank, new GenerationRequest(item.promptTokens(), item.maxNewTokens()), listener::progress);
        return () -> {
            rank.forget(id);
            rank.model().abort(id, rank.virtualNow());
            rank.pump();
        };
    }

    @Override
    public boolean computesPrompts() {
        return true;
    }

    @Override
    public List<EngineStats> stats() {
        return ranks.stream().map(rank -> {
            rank.pump();
            return rank.model().stats();
        }).toList();
    }

    @Override
    public boolean flushCache() {
        boolean idle = true;
        for (ModelDriver<Engine, Progress> rank : ranks) {
            rank.pump();
            EngineStats stats = rank.model().stats();
            idle &= stats.runningRequests() + stats.waitingRequests() == 0;
        }
        if (!idle) {
            return false;
        }
        ranks.forEach(rank -> rank.model().flushCache(rank.virtualNow()));
        return true;
    }

    @Override
    public void loseCaches() {
        for (ModelDriver<Engine, Progress> rank : ranks) {
            rank.pump();
            rank.model().loseCache(rank.virtualNow());
            rank.pump();
        }
    }

    @Override
    public void healthGenerate(Runnable done) {
        submit(ranks.getFirst(), new GenerationRequest(pingPrompt, 1), progress -> {
            if (progress.finished()) {
                done.run();
            }
        });
    }

    @Override
    public long virtualNow() {
        return ranks.getFirst().virtualNow();
    }

    @Override
    public void close() {
        ranks.forEach(ModelDriver::close);
    }

    /** The rank asked for, else the next in turn. */
    private int rank(Integer asked) {
        if (asked == null) {
            int rank = nextRank;
            nextRank = (nextRank + 1) % ranks.size();
            return rank;
        }
        return checkRank(asked, ranks.size());
    }

    /**
     * The rank a request asked for, if this engine of {@code size} ranks has it.
     *
     * @throws BadRequest when it has not
     */
    static int checkRank(int asked, int size) {
        if (asked >= size) {
            throw new BadRequest("'data_parallel_rank' " + asked + " is out of range: this engine has " + size
                + (size == 1 ? " rank (0)" : " ranks (0.." + (size - 1) + ")"));
        }
        return asked;
    }

    /** Queues a request on {@code rank}; its listener hears of it from a later turn of the event loop. */
    private static long submit(ModelDriver<Engine, Progress> rank, GenerationRequest request, Consumer<Progress> listener) {
        long id;
        try {
            id = rank.model().submit(request, rank.virtualNow());
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        rank.listen(id, listener);
        rank.pumpSoon();
        return id;
    }
}
