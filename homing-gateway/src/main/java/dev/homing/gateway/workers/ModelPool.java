package dev.homing.gateway.workers;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.CircuitBreakers;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The workers of one model and the model's own policy instance (so one prefix tree per model). The worker list is
 * copy-on-write: the registry replaces it under its lock, selections read the current list without locking.
 */
public final class ModelPool {

    private final String model;
    private final RoutingPolicy policy;
    private volatile List<Worker> workers = List.of();

    ModelPool(String model, RoutingPolicy policy) {
        this.model = model;
        this.policy = policy;
    }

    public String model() {
        return model;
    }

    public RoutingPolicy policy() {
        return policy;
    }

    public List<Worker> workers() {
        return workers;
    }

    void add(Worker worker) {
        List<Worker> next = new ArrayList<>(workers);
        next.add(worker);
        workers = List.copyOf(next);
    }

    boolean remove(Worker worker) {
        List<Worker> next = new ArrayList<>(workers);
        boolean removed = next.remove(worker);
        workers = List.copyOf(next);
        return removed;
    }

    /**
     * Asks the policy for a worker, takes a lease on its circuit breaker and its in-flight slot. Workers whose circuit
     * refuses traffic are shown to the policy as unavailable, and so are the {@code avoid} ids (the workers that
     * already failed this request) unless no other worker is available: then the request may go back to one of them
     * rather than fail. A worker whose breaker refuses the lease at the last moment (another request took the last
     * half-open probe place) is set aside, the policy told that placement ended unsent, and asked again, at most once
     * per worker. The selection is not
     * found when no worker is available at all.
     */
    public Selection select(RoutingRequest request, Set<String> avoid, CircuitBreakers breakers) {
        Selection selection = selectOutside(request, avoid, breakers);
        return selection.found() || avoid.isEmpty() ? selection : selectOutside(request, Set.of(), breakers);
    }

    private Selection selectOutside(RoutingRequest request, Set<String> avoid, CircuitBreakers breakers) {
        List<Worker> snapshot = workers;
        Set<String> refused = new HashSet<>();
        Decision decision = Decision.noHealthyWorkers();
        for (int round = 0; round <= snapshot.size(); round++) {
            List<WorkerView> views = new ArrayList<>(snapshot.size());
            for (Worker w : snapshot) {
                WorkerView view = w.view();
                boolean usable = !avoid.contains(w.id()) && !refused.contains(w.id())
                        && breakers.of(w.id()).allowsRequests();
                views.add(usable ? view : new WorkerView(view.id(), false, view.inFlight(), view.reportedLoad()));
            }
            decision = policy.select(views, request);
            if (!decision.found() || decision.workerIndex() >= snapshot.size()) {
                break;
            }
            Worker chosen = snapshot.get(decision.workerIndex());
            BreakerLease lease = breakers.tryLease(chosen.id());
            PolicyFeedback feedback = new PolicyFeedback(policy, request, decision);
            if (lease == null) {
                // The policy booked this placement; it will never be sent, so it ends here (which also lets go any
                // request waiting for the prefill it announced).
                feedback.completed(chosen.url(), EngineReport.unknown(false));
                refused.add(chosen.id());
                continue;
            }
            InFlightSlot slot = chosen.startRequest(feedback);
            return new Selection(this, slot, lease, decision);
        }
        return new Selection(this, null, null, decision);
    }

    /**
     * A policy's choice with the slot and breaker lease it took; both are null when nothing could be chosen.
     */
    public record Selection(ModelPool pool, InFlightSlot slot, BreakerLease lease, Decision decision) {
        public boolean found() {
            return slot != null;
        }
    }
}
