package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
    void startsWithEqualWidthsOfFourThousandCharsRoundedDownPerWorker() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        policy.select(Fleet.idle(6), text(0));
        // 4096 / 6 is 682 lengths a bucket; what the division leaves over goes to the open last bucket.
        assertThat(policy.upperBounds()).containsExactly(682, 1364, 2046, 2728, 3410);
    }

    /**
     * How one window's lengths become boundaries. Each bucket but the last takes the shortest lengths left until they
     * make up the per-bucket share, and ends at the length that did; a bucket left without lengths, or completed by
     * a length an earlier bucket already covers, spans one share instead, so no bucket is left without a range.
     */
    static Stream<Arguments> placements() {
        return Stream.of(
                Arguments.of(Named.of("3 workers, a share of 70: 10+20+30+40 completes bucket 0 at 40, 50+60 bucket 1"
                        + " at 60", 3), new int[] {10, 20, 30, 40, 50, 60}, List.of(41, 61)),
                Arguments.of(Named.of("4 workers, a share of 240: the 900-char prompt completes bucket 0 alone; buckets"
                        + " 1 and 2 find no lengths left and span 240 chars each", 4),
                        new int[] {30, 30, 900}, List.of(901, 1142, 1383)),
                Arguments.of(Named.of("3 workers, six prompts of 50, a share of 100: bucket 1's share is completed at"
                        + " 50, below its start (51), so it spans 51 to 151", 3),
                        new int[] {50, 50, 50, 50, 50, 50}, List.of(51, 152)));
    }

    @ParameterizedTest
    @MethodSource("placements")
    void placesEachBoundaryWhereTheShortestLengthsLeftMakeUpAShareLeavingNoBucketEmpty(int workers, int[] lengths,
                                                                                    List<Integer> bounds) {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        windowOf(policy, Fleet.idle(workers), lengths);
        assertThat(policy.upperBounds()).isEqualTo(bounds);
        for (int b = 0; b < bounds.size(); b++) {
            assertThat(policy.select(Fleet.idle(workers), text(bounds.get(b) - 1)).workerIndex()).as("bucket %d", b)
                    .isEqualTo(b);
        }
    }

    @Test
    void keepsTheBoundariesWhileThePerBucketLoadStaysWithinTwofoldOfTheOneTheyWerePlacedFor() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        windowOf(policy, workers, 100, 300);                  // placed for 200 chars a bucket
        assertThat(policy.upperBounds()).containsExactly(301);
        windowOf(policy, workers, 10, 390);                   // 200 again
        windowOf(policy, workers, 150, 250, 400);             // 400: twice, not more
        windowOf(policy, workers, 20, 180);                   // 100: half, not less
        assertThat(policy.upperBounds()).containsExactly(301);
    }

    @Test
    void movesTheBoundariesWhenThePerBucketLoadMoreThanDoublesOrFallsBelowAHalf() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        windowOf(policy, workers, 100, 300);                  // placed for 200
        windowOf(policy, workers, 150, 250, 402);             // 401: more than twice 200
        assertThat(policy.upperBounds()).containsExactly(403);
        windowOf(policy, workers, 20, 380);                   // 200: less than half of 401
        assertThat(policy.upperBounds()).containsExactly(381);
    }

    @Test
    void keepsTheBoundariesThroughAWindowWithoutRequests() {
        BucketPolicy policy = policy(NEVER_IMBALANCED);
        List<WorkerView> workers = Fleet.idle(2);
        windowOf(policy, workers, 100, 300);
        windowOf(policy, workers);
        windowOf(policy, workers, 110, 290);                  // still within twofold of 200
        assertThat(policy.upperBounds()).containsExactly(301);
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

    /** Sends prompts of these lengths, then lets the interval pass so that the window closes. */
    private void windowOf(BucketPolicy policy, List<WorkerView> workers, int... lengths) {
        for (int length : lengths) {
            policy.select(workers, text(length));
        }
        clock.advanceSeconds(5);
        policy.maintain();
    }

    private static RoutingRequest text(int chars) {
        return RoutingRequest.ofText("x".repeat(chars));
    }
}
