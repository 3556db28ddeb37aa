package dev.homing.gateway.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InFlightSlotTest {

    /** Records what the gateway tells a policy about the requests it placed. */
    private static final class RecordingPolicy implements RoutingPolicy {
        final List<String> firstTokens = new ArrayList<>();
        final List<EngineReport> completions = new ArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public Decision select(List<WorkerView> workers, RoutingRequest request) {
            return Decision.of(0, "selected");
        }

        @Override
        public void onFirstToken(String workerId, Decision decision) {
            firstTokens.add(workerId);
        }

        @Override
        public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
            completions.add(report);
        }
    }

    private final RecordingPolicy policy = new RecordingPolicy();
    private final Worker worker = new Worker("w1", new WorkerSpec("http://127.0.0.1:1", null, null, java.util.Map.of(), 0));

    private InFlightSlot slot() {
        return worker.startRequest(new PolicyFeedback(policy, RoutingRequest.ofText("hi"), Decision.of(0, "hit")));
    }

    @Test
    void thePolicyHearsOfEachRequestExactlyOnceWithWhatTheEngineReported() {
        InFlightSlot slot = slot();

        slot.firstToken();
        slot.firstToken();
        assertThat(slot.release(new EngineReport(100, 64, true))).isTrue();
        assertThat(slot.release()).isFalse();

        assertThat(policy.firstTokens).containsExactly("http://127.0.0.1:1");
        assertThat(policy.completions).containsExactly(new EngineReport(100, 64, true));
        assertThat(worker.view().inFlight()).isZero();
    }

    @Test
    void aRequestThatEndsWithoutUsageIsReportedAsUnknownRememberingItsFirstToken() {
        InFlightSlot beforeAnyToken = slot();
        InFlightSlot afterAToken = slot();
        afterAToken.firstToken();

        beforeAnyToken.release();
        afterAToken.release();

        assertThat(policy.completions).containsExactly(EngineReport.unknown(false), EngineReport.unknown(true));
    }
}
