package dev.homing.core.placement;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/** A policy whose decisions a test scripts, writing down everything it is told, one line an event. */
final class RecordingPolicy implements RoutingPolicy {

    final List<String> events = new ArrayList<>();
    final List<List<WorkerView>> views = new ArrayList<>();
    private final BiFunction<List<WorkerView>, Integer, Decision> decide;

    /** @param decide the decision for the views of the {@code n}th select call (from 0) */
    RecordingPolicy(BiFunction<List<WorkerView>, Integer, Decision> decide) {
        this.decide = decide;
    }

    /** Places every request on the first available worker. */
    static RecordingPolicy firstAvailable() {
        return new RecordingPolicy((workers, call) -> {
            for (int i = 0; i < workers.size(); i++) {
                if (workers.get(i).available()) {
                    return Decision.of(i, "first_available");
                }
            }
            return Decision.noHealthyWorkers();
        });
    }

    @Override
    public String name() {
        return "recording";
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        views.add(List.copyOf(workers));
        Decision decision = decide.apply(workers, views.size() - 1);
        events.add("select " + (decision.found() ? workers.get(decision.workerIndex()).id() : decision.branch()));
        return decision;
    }

    @Override
    public void onFirstToken(String workerId, Decision decision) {
        events.add("first token " + workerId);
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        decision.prefillDone();
        events.add("completed " + workerId + " " + report);
    }
}
