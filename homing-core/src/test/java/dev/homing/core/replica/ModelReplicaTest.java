package dev.homing.core.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.reference.CacheAwarePolicy;
import dev.homing.core.tree.PrefixTree;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Two policies of one model, as two gateway replicas hold them, joined by a bus that delivers at once. */
class ModelReplicaTest {

    private static final int BLOCK = 16;
    private static final List<WorkerView> WORKERS = Fleet.idle(4);

    /** The events one replica published, to hand to another. */
    private final List<ReplicaEvent> bus = new ArrayList<>();

    /** Two cache-aware replicas, both attached to the bus: most tests place at a and apply the events at b. */
    private final CacheAwarePolicy a = new CacheAwarePolicy(Fleet.config(), System::nanoTime);
    private final CacheAwarePolicy b = new CacheAwarePolicy(Fleet.config().withSeed(7), System::nanoTime);
    private final ModelReplica atA = replica(a);
    private final ModelReplica atB = replica(b);

    private ModelReplica replica(RoutingPolicy policy) {
        return ModelReplica.attach("m", policy, BLOCK, bus::add);
    }

    private static void deliver(List<ReplicaEvent> events, ModelReplica to) {
        events.forEach(to::apply);
        events.clear();
    }

    private static String text(String name, int chars) {
        StringBuilder text = new StringBuilder();
        while (text.length() < chars) {
            text.append(name).append(' ').append(text.length()).append(". ");
        }
        return text.substring(0, chars);
    }

    @Test
    void aPlacementOfOneReplicaMatchesInTheOthersTreeUpToItsLastWholeBlock() {
        String turn1 = text("alpha", 200);

        Decision first = a.select(WORKERS, RoutingRequest.ofText(turn1));
        deliver(bus, atB);
        Decision second = b.select(WORKERS, RoutingRequest.ofText(turn1 + " and the next question"));

        assertThat(second.workerIndex()).isEqualTo(first.workerIndex());
        assertThat(second.branch()).isEqualTo("hit");
        assertThat(second.matchedChars()).isEqualTo(200 / BLOCK * BLOCK);
        assertThat(atB.remoteEntries()).as("learnt into the tree, gone from the index").isZero();
    }

    @Test
    void theThirdTurnOnAThirdReplicaFindsBothEarlierTurnsChained() {
        CacheAwarePolicy c = new CacheAwarePolicy(Fleet.config().withSeed(9), System::nanoTime);
        ModelReplica atC = replica(c);
        String turn1 = text("beta", 200);
        String turn2 = turn1 + text(" more", 100);

        Decision first = a.select(WORKERS, RoutingRequest.ofText(turn1));
        List<ReplicaEvent> fromA = new ArrayList<>(bus);
        deliver(bus, atB);
        fromA.forEach(atC::apply);
        b.select(WORKERS, RoutingRequest.ofText(turn2)); // B publishes only what the worker did not hold
        deliver(bus, atC);
        Decision third = c.select(WORKERS, RoutingRequest.ofText(turn2 + " and a third"));

        assertThat(third.workerIndex()).isEqualTo(first.workerIndex());
        assertThat(third.matchedChars()).isEqualTo(turn2.length() / BLOCK * BLOCK);
    }

    @Test
    void aSnapshotOfAWarmReplicaTeachesALateOneWhatItHolds() {
        CacheAwarePolicy warm = new CacheAwarePolicy(Fleet.config(), System::nanoTime);
        ModelReplica atWarm = replica(warm);
        CacheAwarePolicy late = new CacheAwarePolicy(Fleet.config().withSeed(5), System::nanoTime);
        ModelReplica atLate = replica(late);
        String opening = text("gamma", 160);
        Decision first = warm.select(WORKERS, RoutingRequest.ofText(opening));
        bus.clear();

        atWarm.snapshot().forEach(atLate::apply);
        Decision next = late.select(WORKERS, RoutingRequest.ofText(opening + " continued"));

        assertThat(next.workerIndex()).isEqualTo(first.workerIndex());
        assertThat(next.matchedChars()).isEqualTo(160);
    }

    @Test
    void otherReplicasPlacementsCountInTheRecentWorkOfLoadAwareAffinity() {
        LoadAwareAffinityPolicy loadA = new LoadAwareAffinityPolicy(Fleet.config(), System::nanoTime);
        LoadAwareAffinityPolicy loadB = new LoadAwareAffinityPolicy(Fleet.config().withSeed(3), System::nanoTime);
        replica(loadA);
        ModelReplica atLoadB = replica(loadB);
        List<WorkerView> two = Fleet.idle(2);
        loadB.select(two, RoutingRequest.ofText("a first request so that the ledgers exist"));
        String busy = "w" + loadB.select(two, RoutingRequest.ofText("x".repeat(64))).workerIndex();
        // Replica A keeps sending fresh work to the same worker.
        for (int i = 0; i < 20; i++) {
            atLoadB.apply(new ReplicaEvent.Placed("m", busy, BlockChain.ROOT, new long[0], 5_000, 0));
        }

        Decision fresh = loadB.select(two, RoutingRequest.ofText(text("delta", 1_000)));

        assertThat("w" + fresh.workerIndex()).isNotEqualTo(busy);
    }

    @Test
    void aTrimLearntByOneReplicaReachesTheOthersTreeWhenTheConversationComesBack() {
        String shared = text("shared", 64);
        String branch = shared + text("Branch", 96);
        String conversation = shared + text("Talk", 96);
        int worker = a.select(WORKERS, RoutingRequest.ofText(branch)).workerIndex();
        a.routingTree().orElseThrow().insert(conversation, "w" + worker);
        deliver(bus, atB);
        b.select(WORKERS, RoutingRequest.ofText(branch + " once more")); // B learns both branches on the way
        b.select(WORKERS, RoutingRequest.ofText(conversation + " once more"));
        bus.clear();
        PrefixTree treeB = b.routingTree().orElseThrow();
        assertThat(treeB.match(branch).matchedCharsFor("w" + worker)).isEqualTo(branch.length() / BLOCK * BLOCK);

        // The engine reported it kept only part of the shared opening of the conversation: the branch went.
        PrefixTree treeA = a.routingTree().orElseThrow();
        treeA.forgetBranchesBelow(conversation, 50, "w" + worker);
        deliver(bus, atB);
        b.select(WORKERS, RoutingRequest.ofText(conversation + " a third time"));

        assertThat(treeA.match(branch).matchedCharsFor("w" + worker)).isEqualTo(64);
        assertThat(treeB.match(branch).matchedCharsFor("w" + worker)).isEqualTo(64);
    }

    @Test
    void aPolicyWithoutATreeSharesNothingButItsLoad() {
        RoutingPolicy roundRobin = dev.homing.core.policy.PolicyFactory.create("round_robin", PolicyConfig.DEFAULTS,
                System::nanoTime);
        ModelReplica replica = replica(roundRobin);
        roundRobin.select(WORKERS, RoutingRequest.ofText(text("eps", 100)));

        assertThat(bus).isEmpty();
        assertThat(replica.snapshot()).isEmpty();
    }
}
