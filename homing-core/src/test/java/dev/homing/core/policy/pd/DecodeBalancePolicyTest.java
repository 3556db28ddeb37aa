package dev.homing.core.policy.pd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecodeBalancePolicyTest {

    private static final RoutingRequest SHORT = RoutingRequest.ofText("hi");

    @Test
    void sendsARequestToTheWorkerWithTheFewestRequestsInFlight() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        assertThat(policy.select(Fleet.withInFlight(3, 1, 2), SHORT)).isEqualTo(Decision.of(1, "fewest_running"));
    }

    @Test
    void amongWorkersEquallyBusyPrefersTheOneWithTheLeastContextInFlight() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        List<WorkerView> idle = Fleet.idle(2);
        int first = policy.select(idle, RoutingRequest.ofText("x".repeat(10_000))).workerIndex();
        // Both still show no request in flight (the driver has not counted the first yet): context decides.
        assertThat(policy.select(idle, SHORT).workerIndex()).isEqualTo(1 - first);
    }

    @Test
    void givesContextBackWhenARequestEnds() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        RoutingRequest longRequest = RoutingRequest.ofText("x".repeat(500));
        Decision decision = policy.select(Fleet.idle(1), longRequest);
        assertThat(policy.contextChars("w0")).isEqualTo(500);
        policy.onCompleted("w0", longRequest, decision, EngineReport.unknown(true));
        assertThat(policy.contextChars("w0")).isZero();
    }

    @Test
    void sharesABurstOverEqualWorkersRatherThanPilingOnTheFirst() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        int[] counts = new int[4];
        for (int i = 0; i < 4_000; i++) {
            Decision decision = policy.select(Fleet.idle(4), SHORT);
            counts[decision.workerIndex()]++;
            policy.onCompleted("w" + decision.workerIndex(), SHORT, decision, EngineReport.unknown(true));
        }
        // Ties are broken at random: each worker near a quarter (1,000, standard deviation about 27).
        assertThat(Arrays.stream(counts).boxed()).allSatisfy(count -> assertThat(count).isBetween(850, 1_150));
    }

    @Test
    void neverChoosesAnUnavailableWorkerAndChoosesNoneWhenNoneIsAvailable() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        assertThat(policy.select(Fleet.withUnavailable(Fleet.withInFlight(0, 5), 0), SHORT).workerIndex())
                .isEqualTo(1);
        assertThat(policy.select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), SHORT))
                .isEqualTo(Decision.noHealthyWorkers());
    }

    @Test
    void forgetsAWorkerThatLeaves() {
        DecodeBalancePolicy policy = new DecodeBalancePolicy(Fleet.config());
        policy.select(Fleet.idle(1), SHORT);
        policy.onWorkerRemoved("w0");
        assertThat(policy.contextChars("w0")).isZero();
    }

    @Test
    void isBuiltByItsNameForTheDecodeLegOnly() {
        assertThat(PolicyFactory.create(DecodeBalancePolicy.NAME, Fleet.config(), System::nanoTime))
                .isInstanceOf(DecodeBalancePolicy.class);
        assertThat(PolicyFactory.DECODE_NAMES).containsAll(PolicyFactory.NAMES).contains(DecodeBalancePolicy.NAME);
        assertThat(PolicyFactory.NAMES).doesNotContain(DecodeBalancePolicy.NAME);
    }
}
