package dev.homing.gateway.workers;

import dev.homing.core.placement.Placer;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.gateway.resilience.BreakerLease;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.CircuitBreakers;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The workers of one role of one model and their own policy instance (so one prefix tree per model and role: the
 * prefill and decode legs of a pair never share one), placed on through the core's {@link Placer} with the workers'
 * circuit breakers as the last word. The worker list is copy-on-write: the registry replaces it under its lock,
 * placements read the current list without locking.
 */
public final class ModelPool {

    private final String model;
    private final WorkerRole role;
    private final Placer placer;
    private volatile List<Worker> workers = List.of();

    ModelPool(String model, WorkerRole role, RoutingPolicy policy) {
        this.model = model;
        this.role = role;
        this.placer = new Placer(policy, System::nanoTime);
    }

    public String model() {
        return model;
    }

    public WorkerRole role() {
        return role;
    }

    public RoutingPolicy policy() {
        return placer.policy();
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
     * Places a new request (see {@link Placer}): workers whose circuit refuses traffic are shown to the policy as
     * unavailable, and the chosen worker's breaker lease is the permit; a breaker that refuses the lease at the last
     * moment (another request took the last half-open probe place) has the policy asked again. Not found when no
     * worker is available at all.
     */
    public Placer.Placed<Worker, BreakerLease> place(RoutingRequest request, CircuitBreakers breakers) {
        return placer.place(workers, request, new BreakerAdmission(breakers));
    }

    /**
     * Places a request again after failed attempts, avoiding {@code failedWorkerIds} while another is available and
     * {@code barredWorkerIds} always.
     */
    public Placer.Placed<Worker, BreakerLease> placeAgain(RoutingRequest request, Set<String> failedWorkerIds,
                                                          Set<String> barredWorkerIds, CircuitBreakers breakers) {
        return placer.placeAgain(workers, request, failedWorkerIds, barredWorkerIds, new BreakerAdmission(breakers));
    }

    /** Whether a worker outside {@code workerIds} is available and its circuit takes requests now. */
    public boolean availableBesides(Set<String> workerIds, CircuitBreakers breakers) {
        for (Worker worker : workers) {
            if (worker.available() && !workerIds.contains(worker.id()) && breakers.of(worker.id()).allowsRequests()) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a placement found no worker: whether that was for want of capacity rather than an outage, because some
     * available worker's circuit is half-open with all its probe places taken. Such a worker takes requests again as
     * soon as a probe of its ends. The circuits may have moved on since the placement; this only picks the answer.
     */
    public boolean probePlacesFull(CircuitBreakers breakers) {
        for (Worker worker : workers) {
            CircuitBreaker breaker = breakers.of(worker.id());
            if (worker.available() && breaker.state() == CircuitBreaker.State.HALF_OPEN && !breaker.allowsRequests()) {
                return true;
            }
        }
        return false;
    }

    /** The circuit breakers' say: an open circuit is not offered, a lease is the permit to send. */
    private record BreakerAdmission(CircuitBreakers breakers) implements Placer.Admission<Worker, BreakerLease> {
        @Override
        public boolean offers(Worker worker) {
            return breakers.of(worker.id()).allowsRequests();
        }

        @Override
        public BreakerLease admit(Worker worker) {
            return breakers.tryLease(worker.id());
        }
    }
}
