package dev.homing.bench.simulate;

import dev.homing.core.placement.InFlightCount;
import dev.homing.core.placement.PlacementTarget;
import dev.homing.core.policy.WorkerView;
import java.util.function.LongSupplier;

/**
 * One worker as the simulated gateway sees it: always available, counting the requests placed on it, with the load
 * last sampled from its engines (unknown until a sample is taken). Its engines are its fleet's. Not thread-safe, like
 * the simulation.
 */
final class SimulatedWorker implements PlacementTarget {

    private final int index;
    private final String id;
    private final LongSupplier load;
    private final InFlightCount inFlight = new InFlightCount();
    private long sampledLoad = WorkerView.UNKNOWN_LOAD;

    /** @param load what {@code /get_load} would report now: the KV tokens its engines use */
    SimulatedWorker(int index, String id, LongSupplier load) {
        this.index = index;
        this.id = id;
        this.load = load;
    }

    /** Its position among its fleet's workers of its kind. */
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

    /** Reads its load, as the gateway's poll of {@code /get_load} does. */
    void sampleLoad() {
        sampledLoad = load.getAsLong();
    }
}
