package dev.homing.bench.simulate;

import java.util.List;

/**
 * Several policies' results on one workload, against the same engines and the same request sequence.
 *
 * @param workload the workload's name
 * @param settings what every run shared
 * @param results  one per policy, in the order they ran
 */
public record Comparison(String workload, SimulationSettings settings, List<PolicyResult> results) {

    public Comparison {
        results = List.copyOf(results);
    }
}
