package dev.homing.core.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.PendingPrefill;
import dev.homing.core.policy.RoutingRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlacementTest {

    private final RecordingPolicy policy = RecordingPolicy.firstAvailable();
    private final Fleet.ManualClock clock = new Fleet.ManualClock();
    private final TestWorker worker = new TestWorker("w0");

    private Placement place(Decision decision) {
        return new Placement(new Placer(policy, clock), RoutingRequest.ofText("hi"), decision, worker.id(),
                worker.inFlightCount(), true);
    }

    private Placement place() {
        return place(Decision.of(0, "hit"));
    }

    private static Decision holding(PendingPrefill awaited, long maxNanos) {
        return new Decision(0, "hit", 0, 0, null, new Decision.Hold(awaited, maxNanos));
    }

    @Test
    void thePolicyHearsOfEachRequestExactlyOnceWithWhatTheEngineReported() {
        Placement placement = place();

        placement.sent();
        placement.firstToken();
        placement.completed(100, 64);

        assertThat(policy.events).containsExactly("first token w0",
                "completed w0 " + new EngineReport(100, 64, true));
        assertThat(placement.phase()).isEqualTo(Placement.Phase.ENDED);
        assertThatThrownBy(placement::endedWithoutReport).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(placement::firstToken).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRequestThatEndsWithoutUsageIsReportedAsUnknownRememberingItsFirstToken() {
        Placement beforeAnyToken = place();
        Placement afterAToken = place();
        beforeAnyToken.sent();
        afterAToken.sent();
        afterAToken.firstToken();

        beforeAnyToken.endedWithoutReport();
        afterAToken.endedWithoutReport();

        assertThat(policy.events).containsExactly("first token w0", "completed w0 " + EngineReport.unknown(false),
                "completed w0 " + EngineReport.unknown(true));
    }

    @Test
    void aRequestCountsOnItsWorkerFromItsPlacementUntilItEnds() {
        Placement first = place();
        Placement second = place();
        assertThat(worker.inFlightCount().get()).isEqualTo(2);

        first.abandoned();
        second.sent();
        assertThat(worker.inFlightCount().get()).isEqualTo(1);

        second.endedWithoutReport();
        assertThat(worker.inFlightCount().get()).isZero();
    }

    @Test
    void aRequestNeverSentEndsWithNothingReportedAndCannotBeSentAfterwards() {
        Placement placement = place();

        placement.abandoned();

        assertThat(policy.events).containsExactly("completed w0 " + EngineReport.unknown(false));
        assertThatThrownBy(placement::sent).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aPlacementWaitingForAPendingPrefillStartsHeldAndMeasuresTheWaitOnItsClock() {
        PendingPrefill awaited = new PendingPrefill();
        Placement placement = place(holding(awaited, 2_000_000));

        assertThat(placement.phase()).isEqualTo(Placement.Phase.HELD);
        assertThat(placement.hold().awaited()).isSameAs(awaited);
        assertThat(placement.hold().untilNanos()).isEqualTo(clock.getAsLong() + 2_000_000);
        assertThatThrownBy(placement::sent).as("not before its hold ends").isInstanceOf(IllegalStateException.class);

        clock.advanceNanos(1_500_000);
        assertThat(placement.endHold(Placement.HoldEnding.RELEASED)).isEqualTo(1_500_000);
        placement.sent();
        assertThat(placement.phase()).isEqualTo(Placement.Phase.SENT);
        assertThat(worker.inFlightCount().get()).isEqualTo(1);
    }

    @Test
    void aPlacementWhoseAwaitedPrefillIsAlreadyDoneIsFreeToBeSentAtOnce() {
        PendingPrefill awaited = new PendingPrefill();
        awaited.finish();

        Placement placement = place(holding(awaited, 2_000_000));

        assertThat(placement.phase()).isEqualTo(Placement.Phase.PLACED);
        assertThat(placement.hold()).isNull();
    }

    @Test
    void aHeldRequestWhoseClientLeftIsNeverSent() {
        Placement placement = place(holding(new PendingPrefill(), 2_000_000));

        placement.endHold(Placement.HoldEnding.CLIENT_GONE);

        assertThatThrownBy(placement::sent).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("client_gone");
        placement.abandoned();
        assertThat(worker.inFlightCount().get()).isZero();
        assertThatThrownBy(() -> placement.endHold(Placement.HoldEnding.TIMED_OUT))
                .as("a hold ends once").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aRequestThatAskedForNoTokensCompletesWithoutAFirstToken() {
        Placement placement = place();
        placement.sent();

        placement.completed(10, 0);

        assertThat(policy.events).containsExactly("completed w0 " + new EngineReport(10, 0, false));
        assertThat(List.of(Placement.HoldEnding.values())).extracting(Placement.HoldEnding::label)
                .containsExactly("released", "timed_out", "client_gone");
    }
}
