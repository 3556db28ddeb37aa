package dev.homing.bench.simulate;

import dev.homing.core.policy.WorkerView;
import java.util.function.LongSupplier;

/**
 * One worker of a simulated fleet: always available, with the load last sampled from its engines
 * (unknown until a sample is taken); its engines are its fleet's. Each placing party (a gateway replica, a fleet's
 * decode step) counts its own requests on it ({@link SimulatedGateway.Target}). Not thread-safe, like the simulation.
 */
final class SimulatedWorker {

    private final int index;
    private final String id;
    private final LongSupplier load;
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

    String id() {
        return id;
    }

    /** The load last sampled, {@link WorkerView#UNKNOWN_LOAD} before the first sample. */
    long sampledLoad() {
        return sampledLoad;
    }

    /** Reads its load, as the gateway's poll of {@code /get_load} does. */
    void sampleLoad() {
        sampledLoad = load.getAsLong();
    }
}
