package dev.homing.bench.simulate;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.sim.model.EngineConfig;
import java.util.concurrent.TimeUnit;

/**
 * Everything a simulation run fixes besides the workload and the policy name. {@link #defaults(int)} gives the
 * engine model's and the gateway's defaults.
 *
 * @param workers                 simulated engines behind the gateway
 * @param engine                  every engine's model settings (the same seed for all, so answers do not depend on
 *                                the worker)
 * @param policy                  the policy settings, with the gateway's flag names
 * @param maintainIntervalNanos   how often the policy's {@code maintain()} runs: the gateway's eviction interval,
 *                                120 s
 * @param loadSampleIntervalNanos how often each engine's load ({@code /get_load}: KV tokens in use) is sampled into
 *                                {@code WorkerView.reportedLoad}; 0 never samples, so every reported load is unknown
 * @param sendRoutingKey          whether the simulated client sends its conversation id as
 *                                {@code X-SMG-Routing-Key} (read by {@code manual} and {@code consistent_hashing})
 */
public record SimulationSettings(
        int workers,
        EngineConfig engine,
        PolicyConfig policy,
        long maintainIntervalNanos,
        long loadSampleIntervalNanos,
        boolean sendRoutingKey) {

    /** The gateway's default eviction interval. */
    public static final long MAINTAIN_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(120);
    /** Load samples every 5 s: stale enough to show what a polled load costs, fresh enough to be useful. */
    public static final long LOAD_SAMPLE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);

    public SimulationSettings {
        if (workers <= 0) {
            throw new IllegalArgumentException("at least one worker is needed");
        }
        if (maintainIntervalNanos <= 0 || loadSampleIntervalNanos < 0) {
            throw new IllegalArgumentException("the maintenance interval must be positive, the sample interval not "
                    + "negative");
        }
    }

    public static SimulationSettings defaults(int workers) {
        return new SimulationSettings(workers, EngineConfig.DEFAULTS, PolicyConfig.DEFAULTS, MAINTAIN_INTERVAL_NANOS,
                LOAD_SAMPLE_INTERVAL_NANOS, true);
    }

    public SimulationSettings withEngine(EngineConfig newEngine) {
        return new SimulationSettings(workers, newEngine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey);
    }

    public SimulationSettings withPolicy(PolicyConfig newPolicy) {
        return new SimulationSettings(workers, engine, newPolicy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey);
    }

    /** The pooled bound's memory: every worker's KV pool together. */
    public long pooledKvTokens() {
        return (long) workers * engine.kvTokens();
    }
}
