package dev.homing.gateway.workers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.placement.Placer;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.resilience.UpstreamOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ModelPoolTest {

    /** One failure opens a circuit, and it turns half-open at once with a single probe place. */
    private final CircuitBreakers breakers = new CircuitBreakers(
            new CircuitBreaker.Settings(1, 1, 0, TimeUnit.SECONDS, false), System::nanoTime, (id, from, to) -> { });

    /** Places on the first available worker; while deciding, lets another request take the chosen one's probe. */
    private final class ProbeTakingPolicy implements RoutingPolicy {
        final List<Decision> decisions = new ArrayList<>();
        final List<String> completedOn = new ArrayList<>();
        final List<Decision> completed = new ArrayList<>();
        final List<EngineReport> reports = new ArrayList<>();

        @Override
        public String name() {
            return "probe_taking";
        }

        @Override
        public Decision select(List<WorkerView> workers, RoutingRequest request) {
            for (int i = 0; i < workers.size(); i++) {
                if (workers.get(i).available()) {
                    if (decisions.isEmpty()) {
                        breakers.tryLease("w" + i); // another request wins the last probe place
                    }
                    Decision decision = Decision.of(i, "first_available");
                    decisions.add(decision);
                    return decision;
                }
            }
            return Decision.noHealthyWorkers();
        }

        @Override
        public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
            completedOn.add(workerId);
            completed.add(decision);
            reports.add(report);
        }
    }

    private static Worker activeWorker(String id, int port) {
        Worker worker = new Worker(id, new WorkerSpec("http://127.0.0.1:" + port, null, "m", Map.of(), 0));
        worker.state(Worker.State.ACTIVE);
        worker.healthy(true);
        return worker;
    }

    @Test
    void aPlacementWhoseBreakerRefusesTheLeaseIsReportedEndedBeforeThePolicyIsAskedAgain() {
        ProbeTakingPolicy policy = new ProbeTakingPolicy();
        ModelPool pool = new ModelPool("m", WorkerRole.REGULAR, policy);
        Worker first = activeWorker("w0", 1);
        Worker second = activeWorker("w1", 2);
        pool.add(first);
        pool.add(second);
        breakers.tryLease("w0").record(UpstreamOutcome.CONNECTION_FAILED); // open, then half-open at once

        Placer.Placed<Worker, BreakerLease> placed = pool.place(RoutingRequest.ofText("hello"), breakers);

        assertThat(placed.found()).isTrue();
        assertThat(placed.worker()).isSameAs(second);
        assertThat(policy.decisions).hasSize(2);
        assertThat(policy.completed).containsExactly(policy.decisions.getFirst());
        assertThat(policy.completedOn).containsExactly(first.url());
        assertThat(policy.reports).containsExactly(EngineReport.unknown(false));
        assertThat(first.inFlight()).isZero();
        assertThat(second.inFlight()).isEqualTo(1);
    }
}
