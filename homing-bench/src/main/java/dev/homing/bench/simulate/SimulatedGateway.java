package dev.homing.bench.simulate;

import dev.homing.core.placement.InFlightCount;
import dev.homing.core.placement.PlacementTarget;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.replica.ModelReplica;
import java.util.ArrayList;
import java.util.List;

/**
 * One gateway replica of a simulation: its own policy object and placement step, and its own view of every worker
 * (the requests it placed there, and what the other replicas last said they placed). With one replica this is the
 * simulated gateway as it always was. Not thread-safe, like the simulation.
 */
final class SimulatedGateway {

    /**
     * One worker as one placing party sees it (this replica, or a prefill/decode fleet's decode step): a
     * {@link PlacementTarget} counting that party's requests there.
     */
    static final class Target implements PlacementTarget {
        private final SimulatedWorker worker;
        private final InFlightCount inFlight = new InFlightCount();

        Target(SimulatedWorker worker) {
            this.worker = worker;
        }

        SimulatedWorker worker() {
            return worker;
        }

        @Override
        public String id() {
            return worker.id();
        }

        @Override
        public WorkerView view() {
            return new WorkerView(worker.id(), true, inFlight.acrossReplicas(), worker.sampledLoad());
        }

        @Override
        public InFlightCount inFlightCount() {
            return inFlight;
        }
    }

    private final int index;
    private final RoutingPolicy policy;
    private final Placer placer;
    private final List<Target> targets;
    /** Null unless the replicas keep each other in step. */
    private ModelReplica replica;
    /** This replica's count per engine as last published; the others' as last delivered, by replica. */
    private final int[] published;
    private final int[][] heard;

    SimulatedGateway(int index, RoutingPolicy policy, Placer placer, List<SimulatedWorker> workers, int replicas) {
        this.index = index;
        this.policy = policy;
        this.placer = placer;
        this.targets = new ArrayList<>(workers.size());
        workers.forEach(worker -> targets.add(new Target(worker)));
        this.published = new int[workers.size()];
        this.heard = new int[replicas][workers.size()];
    }

    int index() {
        return index;
    }

    RoutingPolicy policy() {
        return policy;
    }

    Placer placer() {
        return placer;
    }

    List<Target> targets() {
        return targets;
    }

    ModelReplica replica() {
        return replica;
    }

    void replica(ModelReplica sync) {
        this.replica = sync;
    }

    /** This replica's count on engine {@code worker} if it changed since last published, else -1. */
    int countToPublish(int worker) {
        int count = targets.get(worker).inFlightCount().get();
        if (count == published[worker]) {
            return -1;
        }
        published[worker] = count;
        return count;
    }

    /** This replica's count on engine {@code worker} as last published. */
    int publishedCount(int worker) {
        return published[worker];
    }

    /** Replica {@code from} now has {@code count} requests on engine {@code worker}. */
    void heard(int from, int worker, int count) {
        heard[from][worker] = count;
        int sum = 0;
        for (int[] replica : heard) {
            sum += replica[worker];
        }
        targets.get(worker).inFlightCount().elsewhere(sum);
    }
}
