package dev.homing.core.policy.pd;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DecodeBalancePolicyTest {

    private static final RoutingRequest LONG = RoutingRequest.ofText("x".repeat(40_000));
    private static final RoutingRequest SHORT = RoutingRequest.ofText("x".repeat(400));

    @Test
    void aRequestGoesToTheWorkerHoldingTheLeastOutstandingText() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> workers = Fleet.idle(2);
        int first = policy.select(workers, LONG).workerIndex();

        for (int i = 0; i < 50; i++) {
            assertThat(policy.select(workers, SHORT).workerIndex()).isEqualTo(1 - first);
        }
        assertThat(policy.outstandingOn(workers.get(1 - first).id())).isEqualTo(50 * 400);
    }

    @Test
    void anEndedRequestGivesItsWorkBack() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> workers = Fleet.idle(2);
        Decision decision = policy.select(workers, LONG);
        String worker = workers.get(decision.workerIndex()).id();

        policy.onCompleted(worker, LONG, decision, EngineReport.unknown(true));

        assertThat(policy.outstandingOn(worker)).isZero();
    }

    @Test
    void aRequestWithoutTextStillCountsOnItsWorker() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> workers = Fleet.idle(2);
        int first = policy.select(workers, RoutingRequest.ofText("")).workerIndex();

        assertThat(policy.select(workers, RoutingRequest.ofText("")).workerIndex()).isEqualTo(1 - first);
    }

    @Test
    void tiesOnAnIdleFleetAreSpreadNotGivenToTheFirstWorker() {
        Set<Integer> firstChoices = new HashSet<>();
        for (long seed = 0; seed < 32; seed++) {
            DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config().withSeed(seed));
            firstChoices.add(policy.select(Fleet.idle(4), SHORT).workerIndex());
        }

        assertThat(firstChoices).hasSizeGreaterThan(1);
    }

    @Test
    void anUnavailableWorkerIsNeverChosenAndNoneAvailableFindsNone() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> workers = Fleet.withUnavailable(Fleet.idle(3), 0, 2);

        for (int i = 0; i < 10; i++) {
            assertThat(policy.select(workers, LONG).workerIndex()).isEqualTo(1);
        }
        assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), LONG).found()).isFalse();
    }

    @Test
    void aRemovedWorkerIsForgotten() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> workers = Fleet.idle(1);
        policy.select(workers, LONG);

        policy.onWorkerRemoved("w0");

        assertThat(policy.outstandingOn("w0")).isZero();
    }

    @Test
    void aBurstOfEqualRequestsIsSharedOverEqualWorkersRatherThanPiledOnTheFirst() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        int[] counts = new int[4];
        for (int i = 0; i < 4_000; i++) {
            Decision decision = policy.select(Fleet.idle(4), SHORT);
            counts[decision.workerIndex()]++;
            policy.onCompleted("w" + decision.workerIndex(), SHORT, decision, EngineReport.unknown(true));
        }
        // Every decision is a tie broken at random: each worker near a quarter (1,000, standard deviation about 27).
        assertThat(Arrays.stream(counts).boxed()).allSatisfy(count -> assertThat(count).isBetween(850, 1_150));
    }

    @Test
    void isBuiltByItsNameForTheDecodeLegOnly() {
        assertThat(PolicyFactory.create(DecodeBalancePolicy.NAME, Fleet.config(), System::nanoTime))
                .isInstanceOf(DecodeBalancePolicy.class);
        assertThat(PolicyFactory.DECODE_NAMES).containsAll(PolicyFactory.NAMES).contains(DecodeBalancePolicy.NAME);
        assertThat(PolicyFactory.NAMES).doesNotContain(DecodeBalancePolicy.NAME);
    }
}
