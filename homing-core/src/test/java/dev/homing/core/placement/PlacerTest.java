package dev.homing.core.placement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PendingPrefill;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PlacerTest {

    private final RecordingPolicy policy = RecordingPolicy.firstAvailable();
    private final Placer placer = new Placer(policy, () -> 0L);
    private final List<TestWorker> workers = List.of(new TestWorker("w0"), new TestWorker("w1"), new TestWorker("w2"));

    /** Offers the workers not in {@code closed}; refuses each of {@code refusing} once, when it is chosen. */
    private static final class ScriptedAdmission implements Placer.Admission<TestWorker, String> {
        final Set<String> closed = new HashSet<>();
        final Set<String> refusing = new HashSet<>();

        @Override
        public boolean offers(TestWorker worker) {
            return !closed.contains(worker.id());
        }

        @Override
        public String admit(TestWorker worker) {
            return refusing.remove(worker.id()) ? null : "permit for " + worker.id();
        }
    }

    private final ScriptedAdmission admission = new ScriptedAdmission();

    private Placer.Placed<TestWorker, String> place() {
        return placer.place(workers, RoutingRequest.ofText("hello"), admission);
    }

    private Placer.Placed<TestWorker, String> placeAgain(Set<String> failed) {
        return placeAgain(failed, Set.of());
    }

    private Placer.Placed<TestWorker, String> placeAgain(Set<String> failed, Set<String> barred) {
        return placer.placeAgain(workers, RoutingRequest.ofText("hello"), failed, barred, admission);
    }

    private static List<Boolean> availability(List<WorkerView> views) {
        return views.stream().map(WorkerView::available).toList();
    }

    @Test
    void aPlacedRequestCarriesTheDriversPermitAndCountsOnItsWorker() {
        Placer.Placed<TestWorker, String> placed = place();

        assertThat(placed.found()).isTrue();
        assertThat(placed.worker()).isSameAs(workers.getFirst());
        assertThat(placed.permit()).isEqualTo("permit for w0");
        assertThat(placed.decision().branch()).isEqualTo("first_available");
        assertThat(workers.getFirst().inFlightCount().get()).isEqualTo(1);
        place();
        assertThat(policy.views.get(1).getFirst().inFlight()).as("the second placement sees the first").isEqualTo(1);

        placed.placement().abandoned();
        assertThat(policy.events).last().isEqualTo("completed w0 " + EngineReport.unknown(false));
        assertThat(workers.getFirst().inFlightCount().get()).isEqualTo(1);
    }

    @Test
    void aChoiceTheDriverRefusesIsReportedEndedBeforeThePolicyIsAskedAgainOncePerWorker() {
        admission.refusing.addAll(Set.of("w0", "w1"));

        Placer.Placed<TestWorker, String> placed = place();

        assertThat(placed.worker()).isSameAs(workers.get(2));
        assertThat(policy.events).containsExactly("select w0", "completed w0 " + EngineReport.unknown(false),
                "select w1", "completed w1 " + EngineReport.unknown(false), "select w2");
        assertThat(availability(policy.views.get(2))).containsExactly(false, false, true);
        assertThat(workers.getFirst().inFlightCount().get()).isZero();
        assertThat(workers.get(1).inFlightCount().get()).isZero();
    }

    @Test
    void workersTheDriverDoesNotOfferAreShownUnavailable() {
        admission.closed.add("w0");

        assertThat(place().worker()).isSameAs(workers.get(1));
        assertThat(availability(policy.views.getFirst())).containsExactly(false, true, true);
    }

    @Test
    void aRetryAvoidsTheWorkersThatFailedTheRequestWhileAnotherIsAvailable() {
        assertThat(placeAgain(Set.of("w0", "w1")).worker()).isSameAs(workers.get(2));
        assertThat(policy.views).hasSize(1);
    }

    @Test
    void whenOnlyWorkersThatFailedTheRequestAreLeftARetryMayGoBackToOne() {
        admission.closed.add("w2");

        Placer.Placed<TestWorker, String> placed = placeAgain(Set.of("w0", "w1"));

        assertThat(placed.worker()).isSameAs(workers.getFirst());
        assertThat(availability(policy.views.get(0))).containsExactly(false, false, false);
        assertThat(availability(policy.views.get(1))).containsExactly(true, true, false);
    }

    @Test
    void aRetryNeverGoesBackToABarredWorkerEvenWhenNoOtherIsAvailable() {
        admission.closed.add("w2");

        Placer.Placed<TestWorker, String> placed = placeAgain(Set.of("w0", "w1"), Set.of("w0"));

        assertThat(placed.worker()).as("back to the failed worker that is not barred").isSameAs(workers.get(1));
        assertThat(availability(policy.views.get(1))).containsExactly(false, true, false);
        assertThat(placeAgain(Set.of("w0", "w1"), Set.of("w0", "w1")).found()).isFalse();
    }

    @Test
    void withNoWorkerAvailableNothingIsPlacedAndThePolicyIsAskedOnce() {
        admission.closed.addAll(Set.of("w0", "w1", "w2"));

        Placer.Placed<TestWorker, String> placed = place();

        assertThat(placed.found()).isFalse();
        assertThat(placed.decision().branch()).isEqualTo("no_healthy_workers");
        assertThat(placed.worker()).isNull();
        assertThat(policy.views).hasSize(1);
    }

    @Test
    void theSimulatorsAdmissionTakesEveryWorkerAndEveryChoice() {
        Placer.Placed<TestWorker, TestWorker> placed = placer.place(workers, RoutingRequest.ofText("x"),
                Placer.Admission.always());

        assertThat(placed.permit()).isSameAs(workers.getFirst());
        assertThat(availability(policy.views.getFirst())).containsExactly(true, true, true);
    }

    @Test
    void aFirstPlacementMayBeHeldForAPendingPrefillButARetryIsNever() {
        PendingPrefill pending = new PendingPrefill();
        RecordingPolicy holding = new RecordingPolicy((views, call) ->
                new Decision(0, "hit", 0, 0, null, new Decision.Hold(pending, 1_000)));
        Placer holdingPlacer = new Placer(holding, () -> 0L);

        Placement first = holdingPlacer.place(workers, RoutingRequest.ofText("x"), admission).placement();
        Placement retry = holdingPlacer.placeAgain(workers, RoutingRequest.ofText("x"), Set.of("w1"), Set.of(),
                admission).placement();

        assertThat(first.phase()).isEqualTo(Placement.Phase.HELD);
        assertThat(retry.phase()).isEqualTo(Placement.Phase.PLACED);
    }
}
