package dev.homing.bench.report;

import java.util.List;
import java.util.Objects;

/**
 * Results of several policies on one workload: what a report shows.
 *
 * @param title    a heading for the report
 * @param workload the workload's name and parameters, as one line
 * @param policies one result per policy, in the order to show them
 * @param bounds   the hit-rate ceilings, or {@code null} when not computed
 */
public record Comparison(String title, String workload, List<PolicyResult> policies, HitRateBounds bounds) {

    public Comparison {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(workload, "workload");
        policies = List.copyOf(policies);
    }
}
