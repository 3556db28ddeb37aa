package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BucketPolicyTest {

    /** Imbalance thresholds no test traffic reaches, so only the buckets decide. */
    private static final int NEVER_IMBALANCED = Integer.MAX_VALUE;

    private final Fleet.ManualClock clock = new Fleet.ManualClock();

    @Test
    void startsBySplittingFourThousandCharsEvenly() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(4);
        assertThat(policy.select(workers, text(0))).isEqualTo(Decision.of(0, "bucket_hit"));
        assertThat(policy.upperBounds()).containsExactly(1024, 2048, 3072);
        assertThat(policy.select(workers, text(1023)).workerIndex()).isEqualTo(0);
        assertThat(policy.select(workers, text(1024)).workerIndex()).isEqualTo(1);
        assertThat(policy.select(workers, text(3071)).workerIndex()).isEqualTo(2);
        assertThat(policy.select(workers, text(50_000)).workerIndex()).as("the last bucket is open").isEqualTo(3);
    }

    @Test
    void movesTheBoundariesToTheLengthsSeenOnceTheIntervalHasPassed() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        // Lengths 100..1000 all fall in the first bucket (below 2048): 5,500 chars against 0.
        for (int length = 100; length <= 1000; length += 100) {
            policy.select(workers, text(length));
        }
        clock.advanceNanos(4_999_999_999L);
        policy.maintain();
        assertThat(policy.upperBounds()).containsExactly(2048);

        clock.advanceNanos(1);
        policy.maintain();
        // Running sums 100, 300, ..., 2100, 2800: half of 5,500 is reached at 700, so the first bucket ends after it.
        assertThat(policy.upperBounds()).containsExactly(701);
        assertThat(policy.select(workers, text(700)).workerIndex()).isEqualTo(0);
        assertThat(policy.select(workers, text(701)).workerIndex()).isEqualTo(1);
    }

    @Test
    void adjustsLazilyOnSelectToo() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        policy.select(workers, text(100));
        policy.select(workers, text(300));
        clock.advanceSeconds(5);
        // The window [100, 300] closes first: half of 400 is reached at 300, so bucket 0 now ends at 301.
        assertThat(policy.select(workers, text(400)).workerIndex()).isEqualTo(1);
        assertThat(policy.upperBounds()).containsExactly(301);
    }

    @Test
    void placesBoundariesFromASampleWhenAWindowHoldsMoreLengthsThanItKeeps() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(3);
        for (int i = 0; i < 3 * BucketPolicy.WINDOW_SAMPLES; i++) {
            policy.select(workers, text(1 + i % 900));
        }
        clock.advanceSeconds(5);
        policy.maintain();
        // Lengths uniform over 1..900 hold a share (x / 900)^2 of the chars below x: thirds at 520 and 735.
        assertThat(policy.upperBounds().get(0)).isBetween(490, 550);
        assertThat(policy.upperBounds().get(1)).isBetween(705, 765);
    }

    @Test
    void keepsTheBoundariesWhileBucketLoadsAreWithinTwofold() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        policy.select(workers, text(1500));
        policy.select(workers, text(2500)); // 1,500 chars against 2,500: less than twice
        clock.advanceSeconds(5);
        policy.maintain();
        assertThat(policy.upperBounds()).containsExactly(2048);
    }

    @Test
    void sendsToTheWorkerWithFewestCharsWhenCharsSentAreImbalanced() {
        BucketPolicy policy = policy(64);
        List<WorkerView> workers = Fleet.idle(2);
        assertThat(policy.select(workers, text(1000))).isEqualTo(Decision.of(0, "bucket_hit"));
        // w0 has 1,000 chars, w1 none: 1,000 - 0 > 64 and 1,000 > 0 * 1.5.
        assertThat(policy.select(workers, text(1000))).isEqualTo(Decision.of(1, "imbalance"));
        // 1,000 each now: balanced again, so the bucket decides.
        assertThat(policy.select(workers, text(10))).isEqualTo(Decision.of(0, "bucket_hit"));
    }

    @Test
    void forgetsCharsSentWhenTheWindowCloses() {
        BucketPolicy policy = policy(64);
        List<WorkerView> workers = Fleet.idle(2);
        policy.select(workers, text(1000));
        clock.advanceSeconds(5);
        assertThat(policy.select(workers, text(1000))).isEqualTo(Decision.of(0, "bucket_hit"));
    }

    @Test
    void sendsToTheWorkerWithFewestCharsWhenTheBucketsWorkerIsUnavailable() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(3);
        policy.select(workers, text(3000)); // w2
        policy.select(workers, text(10));   // w0
        assertThat(policy.select(Fleet.withUnavailable(workers, 1), text(2000)))
                .isEqualTo(Decision.of(0, "bucket_worker_unavailable"));
    }

    @Test
    void startsOverWhenTheWorkersChange() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        policy.select(Fleet.idle(2), text(10));
        policy.select(Fleet.idle(4), text(10));
        assertThat(policy.upperBounds()).containsExactly(1024, 2048, 3072);
    }

    @Test
    void choosesNoWorkerWhenNoneIsAvailable() {
        assertThat(policy(NEVER_IMBALANCED).select(Fleet.withUnavailable(Fleet.idle(2), 0, 1), text(10)))
                .isEqualTo(Decision.noHealthyWorkers());
    }

    private BucketPolicy policy(int balanceAbsThreshold) {
        return new BucketPolicy(new PolicyConfig(0.3, balanceAbsThreshold, 1.5, 1 << 26, 14_400,
                PolicyConfig.AssignmentMode.RANDOM, 256, 1.25, 5, 42), clock);
    }

    private static RoutingRequest text(int chars) {
        return RoutingRequest.ofText("x".repeat(chars));
    }
}
