package dev.homing.bench.simulate;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.ExactMatch;
import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.TokenBlocks;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simulated gateway's exact view: one index of what every engine holds, built from the engines' own KV events
 * as they arrive, and the overlay a prompt's tokens get from it. The offline stream loses nothing and starts with the
 * engines, so every worker is exact throughout (the live gateway's liveness would say EXACT all along). Not
 * thread-safe, like the simulation.
 */
final class SimulatedExactView {

    private final ExactKvIndex index;
    private final List<SimulatedWorker> workers;

    SimulatedExactView(RoutingViews views, List<SimulatedWorker> workers) {
        this.index = new ExactKvIndex(new TokenBlocks(views.blockTokens()), Long.MAX_VALUE);
        this.workers = workers;
    }

    /** An event of {@code worker}'s engine has reached the gateway. */
    void apply(SimulatedWorker worker, KvEvent event) {
        index.apply(worker.id(), event);
    }

    /** What each engine holds of {@code promptTokens} now, as the gateway's index knows it. */
    ExactOverlay overlay(int[] promptTokens) {
        ExactMatch match = index.match(promptTokens, KvNamespace.DEFAULT);
        Map<String, Integer> held = new HashMap<>();
        for (SimulatedWorker worker : workers) {
            held.put(worker.id(), match.tokens(worker.id()));
        }
        return new ExactOverlay(promptTokens.length, held);
    }
}
