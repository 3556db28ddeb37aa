package dev.homing.bench.simulate;

import dev.homing.core.policy.WorkerView;
import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;

/**
 * One simulated engine: always available, with the load last sampled from it (unknown until a sample is taken); each
 * gateway replica counts its own requests on it ({@link SimulatedGateway.Target}). Not thread-safe, like the
 * simulation.
 */
final class SimulatedWorker {

    private final int index;
    private final String id;
    private final Engine engine;
    private long sampledLoad = WorkerView.UNKNOWN_LOAD;

    SimulatedWorker(int index, EngineConfig engine) {
        this.index = index;
        this.id = "http://worker-" + index;
        this.engine = new Engine(engine);
    }

    /** Its position among the simulation's workers. */
    int index() {
        return index;
    }

    String id() {
        return id;
    }

    /** The load last sampled, {@link WorkerView#UNKNOWN_LOAD} before the first sample. */
    long sampledLoad() {
        return sampledLoad;
    }

    Engine engine() {
        return engine;
    }

    /** What {@code /get_load} would report now: the engine's KV tokens in use. */
    void sampleLoad() {
        sampledLoad = engine.stats().usedTokens();
    }
}
