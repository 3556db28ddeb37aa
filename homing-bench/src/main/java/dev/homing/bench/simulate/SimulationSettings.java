package dev.homing.bench.simulate;

import dev.homing.config.Config;
import dev.homing.config.EngineSettings;
import dev.homing.config.PolicySettings;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.sim.model.EngineConfig;
import java.util.concurrent.TimeUnit;

/**
 * Everything a simulation run fixes besides the workload and the policy name, from the settings table's values of
 * scope {@code SIMULATE} ({@link #of}); {@link #defaults(int)} gives its defaults.
 *
 * @param workers                 simulated engines behind the gateway
 * @param engine                  every engine's model settings (the same seed for all, so answers do not depend on
 *                                the worker)
 * @param policy                  the policy settings, with the gateway's flag names
 * @param maintainIntervalNanos   how often the policy's {@code maintain()} runs: the gateway's eviction interval
 * @param loadSampleIntervalNanos how often each engine's load ({@code /get_load}: KV tokens in use) is sampled into
 *                                {@code WorkerView.reportedLoad}; 0 never samples, so every reported load is unknown
 * @param sendRoutingKey          whether the simulated client sends its conversation id as
 *                                {@code X-SMG-Routing-Key} (read by {@code manual} and {@code consistent_hashing})
 * @param replicas                the gateway replicas in front of the engines ({@link GatewayReplicas#ONE}: one)
 */
public record SimulationSettings(
        int workers,
        EngineConfig engine,
        PolicyConfig policy,
        long maintainIntervalNanos,
        long loadSampleIntervalNanos,
        boolean sendRoutingKey,
        GatewayReplicas replicas) {

    public SimulationSettings {
        if (workers <= 0) {
            throw new IllegalArgumentException("at least one worker is needed");
        }
        if (maintainIntervalNanos <= 0 || loadSampleIntervalNanos < 0) {
            throw new IllegalArgumentException("the maintenance interval must be positive, the sample interval not "
                    + "negative");
        }
    }

    /** One gateway in front of the engines. */
    public SimulationSettings(int workers, EngineConfig engine, PolicyConfig policy, long maintainIntervalNanos,
                              long loadSampleIntervalNanos, boolean sendRoutingKey) {
        this(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos, sendRoutingKey,
                GatewayReplicas.ONE);
    }

    /** The settings of a checked {@code SIMULATE} configuration; one seed for the policies and the engines. */
    public static SimulationSettings of(Config config) {
        long seed = config.get(Settings.SIMULATION_SEED);
        GatewayReplicas replicas = new GatewayReplicas(config.get(Settings.GATEWAYS),
                config.get(Settings.GATEWAY_SPLIT).equals("random"),
                (long) (config.get(Settings.BUS_DELAY_MS) * 1e6), true, config.get(Settings.REPLICA_SYNC_BLOCK_CHARS),
                (long) (config.get(Settings.LATE_GATEWAY_SECS) * 1e9));
        return new SimulationSettings(config.get(Settings.WORKERS), EngineSettings.engine(config, seed),
                PolicySettings.of(config, seed), TimeUnit.SECONDS.toNanos(config.get(Settings.EVICTION_INTERVAL)),
                (long) (config.get(Settings.LOAD_SAMPLE_INTERVAL_SECS) * 1e9), config.get(Settings.ROUTING_KEY),
                replicas);
    }

    /** The table's defaults with {@code workers} engines and seed 0 (that of {@link EngineConfig#DEFAULTS}). */
    public static SimulationSettings defaults(int workers) {
        return of(Config.defaults(Scope.SIMULATE).with(Settings.WORKERS, workers).with(Settings.SIMULATION_SEED, 0L));
    }

    public SimulationSettings withEngine(EngineConfig newEngine) {
        return new SimulationSettings(workers, newEngine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, replicas);
    }

    public SimulationSettings withPolicy(PolicyConfig newPolicy) {
        return new SimulationSettings(workers, engine, newPolicy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, replicas);
    }

    public SimulationSettings withReplicas(GatewayReplicas newReplicas) {
        return new SimulationSettings(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, newReplicas);
    }

    /** The pooled bound's memory: every worker's KV pool together. */
    public long pooledKvTokens() {
        return (long) workers * engine.kvTokens();
    }
}
