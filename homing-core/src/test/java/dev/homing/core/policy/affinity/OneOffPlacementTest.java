package dev.homing.core.policy.affinity;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.RoutingRequest.Reuse;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** One-off placement: the sketch, the predictor, and where the policy puts what it predicts one-off. */
class OneOffPlacementTest {

    /** No load bound to speak of, no queue term, a window so long that nothing decays in a test. */
    private static final AffinitySettings UNBOUNDED = new AffinitySettings(0.1, 100, 0.5, 1_000_000_000, 0, 256, 1.0,
            0, 0);
    private static final AffinitySettings BOUNDED = new AffinitySettings(0.1, 1.25, 0.5, 1_000_000_000, 0, 256, 1.0,
            0, 0);

    private static final List<WorkerView> THREE = List.of(WorkerView.available("w0", 0),
            WorkerView.available("w1", 0), WorkerView.available("w2", 0));

    private static LoadAwareAffinityPolicy policyWith(AffinitySettings settings) {
        return new LoadAwareAffinityPolicy(PolicyConfig.DEFAULTS.withAffinity(settings), System::nanoTime);
    }

    /** A text of {@code chars} that shares nothing with the text of another {@code n}. */
    private static String text(int n, int chars) {
        return String.valueOf((char) ('a' + n)).repeat(chars);
    }

    private static int place(LoadAwareAffinityPolicy policy, List<WorkerView> workers, String text, Reuse reuse) {
        return policy.select(workers, RoutingRequest.ofText(text).withReuse(reuse)).workerIndex();
    }

    @Test
    void theSketchCountsEachKeyAndHalvesEveryCountAfterItsSample() {
        FrequencySketch sketch = new FrequencySketch(16); // ages every 160 additions

        assertThat(sketch.estimate(42)).isZero();
        for (int i = 0; i < 10; i++) {
            sketch.add(42);
        }
        assertThat(sketch.estimate(42)).isEqualTo(10);
        for (int i = 0; i < 149; i++) {
            sketch.add(7);
        }
        assertThat(sketch.estimate(7)).isEqualTo(15); // saturated
        sketch.add(7); // the 160th addition

        assertThat(sketch.estimate(42)).isEqualTo(5);
        assertThat(sketch.estimate(7)).isEqualTo(7);
    }

    @Test
    void anOpeningNeverSeenIsOneOffAndASecondSightingIsNot() {
        OneOffPredictor predictor = new OneOffPredictor();
        String shared = "s".repeat(100);
        String opening = "first conversation ".repeat(30); // longer than an opening

        assertThat(predictor.oneOff(shared + opening, 100, Reuse.UNKNOWN)).isTrue();
        assertThat(predictor.oneOff(shared + opening + "a later turn", 100, Reuse.UNKNOWN)).isFalse();
        assertThat(predictor.oneOff(shared + "another conversation", 100, Reuse.UNKNOWN)).isTrue();
    }

    @Test
    void aKnownFutureWinsOverTheSketch() {
        OneOffPredictor predictor = new OneOffPredictor();

        assertThat(predictor.oneOff("fresh text", 0, Reuse.REUSED)).isFalse();
        assertThat(predictor.oneOff("fresh text", 0, Reuse.ONE_OFF)).isTrue();
    }

    @Test
    void oneOffMissesGoToTheSameWorkerInsteadOfTheLeastLoaded() {
        List<Integer> on = new ArrayList<>();
        List<Integer> off = new ArrayList<>();
        LoadAwareAffinityPolicy placing = policyWith(UNBOUNDED.withOneOffPlacement(true));
        LoadAwareAffinityPolicy plain = policyWith(UNBOUNDED);
        for (int n = 0; n < 5; n++) {
            on.add(place(placing, THREE, text(n, 300), Reuse.UNKNOWN));
            off.add(place(plain, THREE, text(n, 300), Reuse.UNKNOWN));
        }

        assertThat(on).containsOnly(0);
        assertThat(off).containsOnly(0, 1, 2); // the least loaded each time: they take turns
    }

    @Test
    void oneOffWorkMovesOnBeforeItsWorkerPassesTheLoadBoundInPromptCharacters() {
        LoadAwareAffinityPolicy policy = policyWith(BOUNDED.withOneOffPlacement(true));
        List<WorkerView> two = THREE.subList(0, 2);
        for (int n = 0; n < 4; n++) {
            place(policy, two, text(n, 1000), Reuse.REUSED); // the least loaded each time: 2,000 on each
        }

        // 400 more each: w0 stays within 1.25x the mean with 2,400, 2,800 and 3,200, not with 3,600 (bound 3,500).
        List<Integer> placed = new ArrayList<>();
        for (int n = 4; n < 8; n++) {
            placed.add(place(policy, two, text(n, 400), Reuse.ONE_OFF));
        }
        assertThat(placed).containsExactly(0, 0, 0, 1);
    }

    @Test
    void aRequestKnownReusableIsPlacedAsAnyMiss() {
        LoadAwareAffinityPolicy policy = policyWith(UNBOUNDED.withOneOffPlacement(true));

        assertThat(place(policy, THREE, text(0, 300), Reuse.ONE_OFF)).isZero();
        assertThat(place(policy, THREE, text(1, 300), Reuse.REUSED)).isNotZero();
        assertThat(place(policy, THREE, text(2, 300), Reuse.ONE_OFF)).isZero();
    }

    @Test
    void aContinuationStaysOnItsMatchWhateverItsFuture() {
        LoadAwareAffinityPolicy policy = policyWith(UNBOUNDED.withOneOffPlacement(true));
        int first = place(policy, THREE, text(0, 300), Reuse.REUSED);

        assertThat(place(policy, THREE, text(0, 300) + text(1, 300), Reuse.ONE_OFF)).isEqualTo(first);
    }
}
