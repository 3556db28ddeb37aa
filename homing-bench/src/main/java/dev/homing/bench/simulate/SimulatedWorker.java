package dev.homing.bench.simulate;

import dev.homing.core.placement.InFlightCount;
import dev.homing.core.placement.PlacementTarget;
import dev.homing.core.policy.WorkerView;
import dev.homing.sim.model.Engine;
import dev.homing.sim.model.EngineConfig;

/**
 * One simulated engine as the simulated gateway sees it: always available, counting the requests placed on it, with
 * the load last sampled from it (unknown until a sample is taken). Not thread-safe, like the simulation.
 */
final class SimulatedWorker implements PlacementTarget {

    private final int index;
    private final String id;
    private final Engine engine;
    private final InFlightCount inFlight = new InFlightCount();
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

    @Override
    public String id() {
        return id;
    }

    @Override
    public WorkerView view() {
        return new WorkerView(id, true, inFlight.get(), sampledLoad);
    }

    @Override
    public InFlightCount inFlightCount() {
        return inFlight;
    }

    Engine engine() {
        return engine;
    }

    /** What {@code /get_load} would report now: the engine's KV tokens in use. */
    void sampleLoad() {
        sampledLoad = engine.stats().usedTokens();
    }
}
