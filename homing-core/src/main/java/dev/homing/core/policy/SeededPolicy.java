package dev.homing.core.policy;

/**
 * What every policy of Homing's is built with: the name users give on the command line, and a {@link WorkerPicker}
 * seeded from the configuration, so that a run of the offline simulator repeats for a seed and no two policies draw
 * from one sequence. A policy that never draws at random ({@code round_robin}'s turns, {@code cache_aware}'s
 * rotation of ties) simply leaves the picker alone.
 *
 * <p>Thread-safe: both are immutable or thread-safe themselves.
 */
public abstract class SeededPolicy implements RoutingPolicy {

    private final String name;
    protected final WorkerPicker picker;

    protected SeededPolicy(String name, PolicyConfig config) {
        this.name = name;
        this.picker = new WorkerPicker(config.seed());
    }

    @Override
    public final String name() {
        return name;
    }
}
