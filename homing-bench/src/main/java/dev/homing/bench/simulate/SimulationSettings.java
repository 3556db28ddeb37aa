package dev.homing.bench.simulate;

import dev.homing.config.Config;
import dev.homing.config.EngineSettings;
import dev.homing.config.PolicySettings;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.sim.model.EngineConfig;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

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
 * @param fleet                   how the engines stand behind the gateway
 * @param replicas                the gateway replicas in front of the engines ({@link GatewayReplicas#ONE}: one)
 * @param views                   the view the tree policies route on, and how the exact view is modelled
 */
public record SimulationSettings(
        int workers,
        EngineConfig engine,
        PolicyConfig policy,
        long maintainIntervalNanos,
        long loadSampleIntervalNanos,
        boolean sendRoutingKey,
        FleetShape fleet,
        GatewayReplicas replicas,
        RoutingViews views) {

    /** Why several gateways in front of a prefill/decode fleet are refused: each would need its own decode step. */
    public static final String MANY_GATEWAYS_PD = "several gateways in front of a prefill/decode fleet are not "
            + "simulated yet (each would need its own decode step); run the pd fleet with one gateway";

    public SimulationSettings {
        if (workers <= 0) {
            throw new IllegalArgumentException("at least one worker is needed");
        }
        if (maintainIntervalNanos <= 0 || loadSampleIntervalNanos < 0) {
            throw new IllegalArgumentException("the maintenance interval must be positive, the sample interval not "
                    + "negative");
        }
        Objects.requireNonNull(fleet, "fleet");
        Objects.requireNonNull(replicas, "replicas");
        if (replicas.gateways() > 1 && fleet.kind() == FleetShape.Kind.DISAGGREGATED) {
            throw new IllegalArgumentException(MANY_GATEWAYS_PD);
        }
        Objects.requireNonNull(views, "views");
        if (views.modelled() && fleet.kind() == FleetShape.Kind.DATA_PARALLEL) {
            throw new IllegalArgumentException(EXACT_NEEDS_ONE_ENGINE);
        }
    }

    /** Why --routing-view exact or both is refused for a fleet whose workers are not one engine each. */
    public static final String EXACT_NEEDS_ONE_ENGINE = "--routing-view exact and both are simulated for workers of "
            + "one engine each: fleet regular, pd (its prefill workers) or dp-aware";

    public SimulationSettings(int workers, EngineConfig engine, PolicyConfig policy, long maintainIntervalNanos,
                              long loadSampleIntervalNanos, boolean sendRoutingKey, FleetShape fleet,
                              GatewayReplicas replicas) {
        this(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos, sendRoutingKey, fleet, replicas,
                RoutingViews.TREE);
    }

    /** One gateway in front of a regular fleet of {@code workers} engines. */
    public SimulationSettings(int workers, EngineConfig engine, PolicyConfig policy, long maintainIntervalNanos,
                              long loadSampleIntervalNanos, boolean sendRoutingKey) {
        this(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos, sendRoutingKey,
                FleetShape.REGULAR, GatewayReplicas.ONE);
    }

    /** The settings of a checked {@code SIMULATE} configuration; one seed for the policies and the engines. */
    public static SimulationSettings of(Config config) {
        long seed = config.get(Settings.SIMULATION_SEED);
        GatewayReplicas replicas = new GatewayReplicas(config.get(Settings.GATEWAYS),
                config.get(Settings.GATEWAY_SPLIT).equals("random"),
                (long) (config.get(Settings.BUS_DELAY_MS) * 1e6), true, config.get(Settings.REPLICA_SYNC_BLOCK_CHARS),
                (long) (config.get(Settings.LATE_GATEWAY_SECS) * 1e9));
        FleetShape fleet = new FleetShape(FleetShape.Kind.parse(config.get(Settings.FLEETS).getFirst()),
                config.get(Settings.PREFILL_WORKERS), config.get(Settings.DECODE_WORKERS),
                config.get(Settings.DP_SIZE), EngineSettings.disaggregation(config));
        return new SimulationSettings(config.get(Settings.WORKERS), EngineSettings.engine(config, seed),
                PolicySettings.of(config, seed), TimeUnit.SECONDS.toNanos(config.get(Settings.EVICTION_INTERVAL)),
                (long) (config.get(Settings.LOAD_SAMPLE_INTERVAL_SECS) * 1e9), config.get(Settings.ROUTING_KEY),
                fleet, replicas, new RoutingViews(RoutingViews.Mode.parse(config.get(Settings.ROUTING_VIEW)),
                        (long) (config.get(Settings.KV_EVENT_DELAY_MS) * 1e6), RoutingViews.TREE.blockTokens()));
    }

    /** The table's defaults with {@code workers} engines and seed 0 (that of {@link EngineConfig#DEFAULTS}). */
    public static SimulationSettings defaults(int workers) {
        return of(Config.defaults(Scope.SIMULATE).with(Settings.WORKERS, workers).with(Settings.SIMULATION_SEED, 0L));
    }

    public SimulationSettings withEngine(EngineConfig newEngine) {
        return new SimulationSettings(workers, newEngine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, fleet, replicas, views);
    }

    public SimulationSettings withPolicy(PolicyConfig newPolicy) {
        return new SimulationSettings(workers, engine, newPolicy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, fleet, replicas, views);
    }

    public SimulationSettings withReplicas(GatewayReplicas newReplicas) {
        return new SimulationSettings(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, fleet, newReplicas, views);
    }

    public SimulationSettings withViews(RoutingViews newViews) {
        return new SimulationSettings(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, fleet, replicas, newViews);
    }

    /** The runs each policy makes: one, or with {@code --routing-view both} the tree's and the exact view's. */
    List<SimulationSettings> viewRuns() {
        return views.mode() == RoutingViews.Mode.BOTH ? List.of(this, withViews(views.withMode(RoutingViews.Mode.EXACT)))
                : List.of(this);
    }

    public SimulationSettings withFleet(FleetShape newFleet) {
        return new SimulationSettings(workers, engine, policy, maintainIntervalNanos, loadSampleIntervalNanos,
                sendRoutingKey, newFleet, replicas, views);
    }

    /** The pooled bound's memory: the KV pools of every engine the routing policy places on, together. */
    public long pooledKvTokens() {
        return switch (fleet.kind()) {
            case REGULAR -> (long) workers * engine.kvTokens();
            case DISAGGREGATED -> (long) fleet.prefillWorkers() * engine.kvTokens();
            case DATA_PARALLEL, RANK_AWARE -> (long) workers * fleet.dpSize() * engine.kvTokens();
        };
    }

    /** The fleet's engines, as {@code fleet} lays them out; decode placements run on {@code clock}. */
    SimulatedFleet<?> newFleet(LongSupplier clock) {
        return switch (fleet.kind()) {
            case REGULAR -> EngineFleet.regular(workers, engine);
            case DISAGGREGATED -> new DisaggregatedFleet(fleet.prefillWorkers(), fleet.decodeWorkers(), engine,
                    fleet.disaggregation(), policy, clock);
            case DATA_PARALLEL -> EngineFleet.dataParallel(workers, fleet.dpSize(), engine);
            case RANK_AWARE -> EngineFleet.rankAware(workers, fleet.dpSize(), engine);
        };
    }

    /** The fleet in a few words: {@code 8 workers}, {@code 4 prefill + 4 decode}, {@code 1 server x 4 ranks}... */
    public String fleetDescription() {
        return switch (fleet.kind()) {
            case REGULAR -> workers + " workers";
            case DISAGGREGATED -> fleet.prefillWorkers() + " prefill + " + fleet.decodeWorkers() + " decode";
            case DATA_PARALLEL -> plural(workers, "server") + " x " + fleet.dpSize() + " ranks, round robin inside";
            case RANK_AWARE -> workers * fleet.dpSize() + " ranks routed to";
        };
    }

    private static String plural(int count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }
}
