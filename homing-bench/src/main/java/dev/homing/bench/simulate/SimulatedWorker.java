package dev.homing.bench.simulate;

import dev.homing.core.policy.WorkerView;
import java.util.function.LongSupplier;

/**
 * One worker of a simulated fleet: always available, with the load last sampled from its engines
 * (unknown until a sample is taken); its engines are its fleet's. Each placing party (a gateway replica, a fleet's
 * decode step) counts its own requests on it ({@link SimulatedGateway.Target}). Not thread-safe, like the simulation.
 *
 * @param index its position among its fleet's workers of its kind
 * @param load  its sampled load, its own: two workers are never equal
 */
record SimulatedWorker(int index, String id, SampledLoad load) {

    /** @param load what {@code /get_load} would report now: the KV tokens its engines use */
    SimulatedWorker(int index, String id, LongSupplier load) {
        this(index, id, new SampledLoad(load));
    }

    /** The load last sampled, {@link WorkerView#UNKNOWN_LOAD} before the first sample. */
    long sampledLoad() {
        return load.last;
    }

    /** Reads its load, as the gateway's poll of {@code /get_load} does. */
    void sampleLoad() {
        load.last = load.source.getAsLong();
    }

    /** A worker's load as last read from its source. */
    static final class SampledLoad {
        private final LongSupplier source;
        private long last = WorkerView.UNKNOWN_LOAD;

        private SampledLoad(LongSupplier source) {
            this.source = source;
        }
    }
}
