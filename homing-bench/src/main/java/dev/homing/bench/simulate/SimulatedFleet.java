package dev.homing.bench.simulate;

import dev.homing.core.kv.KvEvent;
import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.VirtualTimeModel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The engines behind the simulated gateway: the workers the routing policy places on, and how a request it placed
 * reaches the engines and is answered. A regular fleet ({@link EngineFleet}) sends each request to one engine of its
 * worker; a disaggregated one ({@link DisaggregatedFleet}) to a prefill engine and a decode engine at once.
 *
 * <p>A fleet owns the placements it makes itself (a decode leg's) and tells the routing policy's placement of each
 * request its first token and its end, as the engine that leg ran on reports them. Not thread-safe, like the
 * simulation.
 *
 * @param <M> the fleet's engine model
 */
abstract sealed class SimulatedFleet<M extends VirtualTimeModel<?>> permits EngineFleet, DisaggregatedFleet {

    /** The workers the routing policy places on, in the order it sees them; the subclass fills it. */
    final List<SimulatedWorker> routed = new ArrayList<>();
    /** Every engine, in the order equal-time events are taken; the subclass fills it. */
    final List<M> engines = new ArrayList<>();
    private final long capacityPerWorker;

    /** @param capacityPerWorker the KV tokens the engines of one routed worker hold */
    SimulatedFleet(long capacityPerWorker) {
        this.capacityPerWorker = capacityPerWorker;
    }

    /** What the simulation hears of the requests it sent, in the order the client would. */
    interface Answers {

        /** The client received output token {@code progress.completionTokens()} (or, for none, the end). */
        void progressed(TurnRequest request, Progress progress);

        /** The request's answer is complete ({@code last}); every placement of it has ended. */
        void answered(TurnRequest request, Progress last);

        /** The request failed after it was sent; every placement of it has ended. */
        void failed(TurnRequest request);
    }

    /** Prompt tokens admitted on the routing policy's leg, of those the cached ones, and output tokens sent back. */
    record Totals(long promptTokens, long cachedTokens, long outputTokens) {

        /** The prompts {@code computing} engines admitted and the output {@code answering} engines emitted. */
        static Totals of(List<EngineStats> computing, List<EngineStats> answering) {
            EngineStats prompts = EngineStats.sum(computing);
            return new Totals(prompts.promptTokensTotal(), prompts.cachedTokensTotal(),
                    EngineStats.sum(answering).generationTokensTotal());
        }
    }

    /** The KV tokens the engines of one routed worker hold. */
    final long capacityPerWorker() {
        return capacityPerWorker;
    }

    /** When the next engine event is due, or {@link Long#MAX_VALUE} when every engine is idle. */
    final long nextEventNanos() {
        int earliest = earliest();
        return earliest < 0 ? Long.MAX_VALUE : engines.get(earliest).nextEventNanos();
    }

    /** Takes the events of one engine whose next event is due at {@code atNanos} (the earliest). */
    abstract void advance(long atNanos, Answers answers);

    /**
     * Sends a placed request at {@code nowNanos}; its routing placement stays the caller's to mark sent.
     *
     * @return false, with nothing sent and nothing left placed, when an engine refuses the prompt
     */
    abstract boolean send(TurnRequest request, long nowNanos);

    /** Samples every worker's load. */
    abstract void sampleLoad();

    /**
     * From now on, each routed worker's engine tells {@code sink} the changes to its KV cache, on the simulation's
     * thread, as they happen; called before any request is sent. Only a fleet of one engine a routed worker can.
     */
    void publishKvEvents(BiConsumer<SimulatedWorker, KvEvent> sink) {
        throw new UnsupportedOperationException("the exact view is simulated for workers of one engine each");
    }

    abstract Totals totals();

    /** The index of the first engine whose next event is the earliest, or -1 when all are idle. */
    final int earliest() {
        int earliest = -1;
        long at = Long.MAX_VALUE;
        for (int i = 0; i < engines.size(); i++) {
            long next = engines.get(i).nextEventNanos();
            if (next < at) {
                at = next;
                earliest = i;
            }
        }
        return earliest;
    }
}
