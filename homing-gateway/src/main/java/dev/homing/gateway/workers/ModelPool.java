package dev.homing.gateway.workers;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.ArrayList;
import java.util.List;

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
     * Asks the policy for a worker and takes its in-flight slot. Returns null when the policy finds no available
     * worker.
     */
    public Selection select(RoutingRequest request) {
        return select(request, java.util.Set.of());
    }

    /** As {@link #select(RoutingRequest)}, with {@code excluded} workers shown to the policy as unavailable. */
    public Selection select(RoutingRequest request, java.util.Set<Worker> excluded) {
        List<Worker> snapshot = workers;
        List<WorkerView> views = new ArrayList<>(snapshot.size());
        for (Worker w : snapshot) {
            WorkerView view = w.view();
            views.add(excluded.contains(w) ? new WorkerView(view.id(), false, view.inFlight(), view.reportedLoad())
                    : view);
        }
        Decision decision = policy.select(views, request);
        if (!decision.found() || decision.workerIndex() >= snapshot.size()) {
            return new Selection(this, null, decision);
        }
        Worker chosen = snapshot.get(decision.workerIndex());
        return new Selection(this, chosen.startRequest(new PolicyFeedback(policy, request, decision)), decision);
    }

    /**
     * A policy's choice and the slot it took; {@code slot} is null when nothing could be chosen.
     */
    public record Selection(ModelPool pool, InFlightSlot slot, Decision decision) {
        public boolean found() {
            return slot != null;
        }
    }
}
