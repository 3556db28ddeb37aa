package dev.homing.bench.simulate;

import dev.homing.bench.report.Comparison;
import dev.homing.bench.report.HitRateBounds;
import dev.homing.bench.workload.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * One workload through several policies, one after the other, each with fresh engines: what both
 * {@code homing simulate} and {@code homing compare} do. With several gateway replicas asked for, each policy runs
 * three times: as one gateway, as the replicas kept in step, and as independent replicas; with
 * {@code --routing-view both}, each of these on the tree and then on the exact view. A trace with block ids adds
 * the foresight ceiling's run ({@link Simulation#runWithForesight}). Runs are sequential so that wall times are comparable and
 * the machine stays usable; each is deterministic for a given seed.
 *
 * @param workload the workload's name
 * @param settings what every run shared
 * @param runs     one result per policy, in the order they ran
 */
public record PolicyComparison(String workload, SimulationSettings settings, List<SimulationResult> runs) {

    public PolicyComparison {
        runs = List.copyOf(runs);
    }

    /** @param finished hears each policy's result as soon as its run ends (for progress output) */
    public static PolicyComparison run(SimulationSettings settings, RequestShape shape, Workload workload,
                                       List<String> policies, Consumer<SimulationResult> finished) {
        return run(settings, shape, workload, policies, finished, RequestLog.NONE);
    }

    /**
     * As {@link #run(SimulationSettings, RequestShape, Workload, List, Consumer)}, every run's answered requests
     * written to {@code log}.
     */
    public static PolicyComparison run(SimulationSettings settings, RequestShape shape, Workload workload,
                                       List<String> policies, Consumer<SimulationResult> finished, RequestLog log) {
        List<SimulationResult> runs = new ArrayList<>(policies.size());
        GatewayReplicas replicas = settings.replicas();
        // Several replicas: each policy as one gateway, then as the replicas with sync and without, the same run.
        List<GatewayReplicas> setups = replicas.gateways() == 1 ? List.of(replicas) : List.of(
                replicas.withGateways(1, false), replicas.withGateways(replicas.gateways(), true),
                replicas.withGateways(replicas.gateways(), false));
        for (String policy : policies) {
            for (SimulationSettings view : settings.viewRuns()) {
                for (GatewayReplicas setup : setups) {
                    SimulationResult result = Simulation.run(view.withReplicas(setup), shape, workload, policy, log);
                    finished.accept(result);
                    runs.add(result);
                }
            }
        }
        // The foresight ceiling needs each request's future: only a trace with block ids tells it.
        if (settings.fleet().kind() == FleetShape.Kind.REGULAR && replicas.gateways() == 1) {
            ForesightLabels foresight = ForesightLabels.of(workload);
            if (!foresight.isEmpty()) {
                SimulationResult ceiling = Simulation.runWithForesight(settings, shape, workload, foresight, log);
                finished.accept(ceiling);
                runs.add(ceiling);
            }
        }
        return new PolicyComparison(workload.name(), settings, runs);
    }

    /**
     * The comparison as the report writer takes it. The bounds are the first run's: for open-loop traces every run
     * sends the same requests; for closed-loop conversations the order of later turns, and so the bounds, can
     * differ slightly between policies (each run keeps its own in {@link SimulationResult#bounds}).
     */
    public Comparison report() {
        String description = settings.fleet().kind() == FleetShape.Kind.REGULAR
                ? String.format(Locale.ROOT, "%s, %d simulated workers of %,d KV tokens", workload,
                        settings.workers(), settings.engine().kvTokens())
                : String.format(Locale.ROOT, "%s, %s fleet: %s, engines of %,d KV tokens", workload,
                        settings.fleet().kind().flag(), settings.fleetDescription(), settings.engine().kvTokens());
        HitRateBounds bounds = runs.isEmpty() ? null : HitRateBounds.of(runs.getFirst().bounds());
        return new Comparison("Routing policies compared in simulation", description,
                runs.stream().map(SimulationResult::toReport).toList(), bounds);
    }
}
