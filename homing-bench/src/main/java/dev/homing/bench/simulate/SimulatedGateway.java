package dev.homing.bench.simulate;

import dev.homing.core.placement.InFlightCount;
import dev.homing.core.placement.PlacementTarget;
import dev.homing.core.placement.Placer;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.replica.ModelReplica;
import java.util.List;

/**
 * One gateway replica of a simulation: its own policy object and placement step, and its own view of every worker
 * (the requests it placed there, and what the other replicas last said they placed). With one replica this is the
 * simulated gateway as it always was. Not thread-safe, like the simulation.
 *
 * @param counts its own, as are its targets: two replicas are never equal
 */
record SimulatedGateway(int index, RoutingPolicy policy, Placer placer, List<Target> targets,
                        SimulatedGateway.ReplicaCounts counts) {

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

    /** @param workers every engine of the fleet, each seen as this replica's {@link Target} */
    SimulatedGateway(int index, RoutingPolicy policy, Placer placer, List<SimulatedWorker> workers, int replicas) {
        this(index, policy, placer, workers.stream().map(Target::new).toList(),
                new ReplicaCounts(replicas, workers.size()));
    }

    /** The replica link and the counts it carries: this replica's as last published, the others' as delivered. */
    static final class ReplicaCounts {
        /** Null unless the replicas keep each other in step. */
        private ModelReplica replica;
        /** By engine. */
        private final int[] published;
        /** By replica, then engine. */
        private final int[][] heard;

        private ReplicaCounts(int replicas, int workers) {
            this.published = new int[workers];
            this.heard = new int[replicas][workers];
        }
    }

    ModelReplica replica() {
        return counts.replica;
    }

    void replica(ModelReplica sync) {
        counts.replica = sync;
    }

    /** This replica's count on engine {@code worker} if it changed since last published, else -1. */
    int countToPublish(int worker) {
        int count = targets.get(worker).inFlightCount().get();
        if (count == counts.published[worker]) {
            return -1;
        }
        counts.published[worker] = count;
        return count;
    }

    /** This replica's count on engine {@code worker} as last published. */
    int publishedCount(int worker) {
        return counts.published[worker];
    }

    /** Replica {@code from} now has {@code count} requests on engine {@code worker}. */
    void heard(int from, int worker, int count) {
        counts.heard[from][worker] = count;
        int sum = 0;
        for (int[] replica : counts.heard) {
            sum += replica[worker];
        }
        targets.get(worker).inFlightCount().elsewhere(sum);
    }
}
