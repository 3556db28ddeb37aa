package dev.homing.bench.simulate;

import dev.homing.bench.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs one workload through several policies, one after the other, each with fresh engines: what both
 * {@code homing simulate} and {@code homing compare} do. Runs are sequential so that wall times are comparable and
 * the machine stays usable; each is deterministic for a given seed.
 */
public final class PolicyComparison {

    private PolicyComparison() {
    }

    /**
     * @param finished hears each policy's result as soon as its run ends (for progress output)
     */
    public static Comparison run(SimulationSettings settings, RequestShape shape, Workload workload,
                                 List<String> policies, Consumer<PolicyResult> finished) {
        List<PolicyResult> results = new ArrayList<>(policies.size());
        for (String policy : policies) {
            PolicyResult result = Simulation.run(settings, shape, workload, policy);
            finished.accept(result);
            results.add(result);
        }
        return new Comparison(workload.name(), settings, results);
    }
}
