package dev.homing.core.policy.reference;

import dev.homing.core.policy.AvailableWorkersPolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference's two policies that spread requests without reading them or any load: each takes the {@code k}-th
 * available worker (branch {@code selected}), and they differ only in where {@code k} comes from.
 * <ul>
 *   <li>{@code round_robin}: one counter per policy instance, taken modulo the number of available workers. As in
 *       the reference, the order shifts when a worker's availability changes.</li>
 *   <li>{@code random}: a uniform draw, so each available worker is equally likely.</li>
 * </ul>
 * Unavailable workers are skipped, never chosen.
 *
 * <p>Thread-safe: the counter is atomic, so concurrent callers each take a distinct turn, and so is the picker.
 */
public final class SpreadPolicy extends AvailableWorkersPolicy {

    public static final String ROUND_ROBIN = "round_robin";
    public static final String RANDOM = "random";

    private final boolean random;
    private final AtomicLong turns = new AtomicLong();

    private SpreadPolicy(String name, PolicyConfig config) {
        super(name, config);
        this.random = name.equals(RANDOM);
    }

    public static SpreadPolicy roundRobin(PolicyConfig config) {
        return new SpreadPolicy(ROUND_ROBIN, config);
    }

    public static SpreadPolicy random(PolicyConfig config) {
        return new SpreadPolicy(RANDOM, config);
    }

    @Override
    protected Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        int k = random ? picker.nextInt(available) : (int) Math.floorMod(turns.getAndIncrement(), (long) available);
        return Decision.of(WorkerPicker.nthAvailable(workers, k), "selected");
    }
}
