package dev.homing.core.placement;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The placement step, the same for every driver: shows one policy the workers as they are, asks it for one, lets
 * the driver refuse the choice at the last moment, and turns the choice into a {@link Placement}.
 *
 * <ol>
 *   <li>Each worker is shown as its own view says, but unavailable when the driver does not offer it
 *       ({@link Admission#offers}: the gateway's open circuits), and on a retry when it already failed the request.
 *   <li>The driver takes its permit for the chosen worker ({@link Admission#admit}: the gateway's circuit-breaker
 *       lease). Refused (another request took the last half-open probe place meanwhile), the placement ends unsent:
 *       the policy hears {@code onCompleted} with nothing reported, which also lets go any request waiting for the
 *       prefill it announced; that worker is shown unavailable and the policy asked again, at most once per worker.
 *   <li>A worker found: the request is counted on it from here ({@link Placement}); a first placement may be held
 *       for an earlier request's prefill, as the decision says.
 * </ol>
 * A retry is a placement of its own ({@link #placeAgain}): the failed attempt has ended (its placement told the
 * policy and gave its count back), and the new one avoids the workers that failed the request, unless no other is
 * available: then it may go back to one of them rather than fail, but never to a barred one (the driver's: a worker
 * that may be running the request already). It is never held: the awaited prefill has had its chance.
 *
 * <p>Invariant: every choice the policy makes is answered once, as a {@link Placement} that will end, or, refused by
 * the driver, with {@code onCompleted} at once; the policy is asked at most once more per worker, so a step ends.
 *
 * <p>Thread-safe when the policy is (the gateway places from every event loop at once): a step keeps its state on
 * the stack.
 */
public final class Placer {

    /**
     * The driver's say over which workers a request may go to.
     *
     * @param <W> the driver's worker type
     * @param <P> what the driver holds for a request it admitted (the gateway: a circuit-breaker lease)
     */
    public interface Admission<W, P> {

        /** Whether {@code worker} may be offered to the policy now. */
        boolean offers(W worker);

        /** The driver's permit to send to the chosen {@code worker}, or null when it refuses it. */
        P admit(W worker);

        /** Offers every worker and admits every choice; the permit is the worker itself (the simulator). */
        static <W> Admission<W, W> always() {
            return new Admission<>() {
                @Override
                public boolean offers(W worker) {
                    return true;
                }

                @Override
                public W admit(W worker) {
                    return worker;
                }
            };
        }
    }

    /**
     * The outcome of a step: the policy's last decision and, when a worker took the request, that worker, the
     * driver's permit and the placement (all null when none did).
     */
    public record Placed<W, P>(Decision decision, W worker, P permit, Placement placement) {

        public boolean found() {
            return placement != null;
        }
    }

    private final RoutingPolicy policy;
    private final LongSupplier nanoClock;

    /** @param nanoClock the clock a hold is measured on (the gateway's nano time, the simulator's virtual time) */
    public Placer(RoutingPolicy policy, LongSupplier nanoClock) {
        this.policy = policy;
        this.nanoClock = nanoClock;
    }

    public RoutingPolicy policy() {
        return policy;
    }

    /** The time on this step's clock. */
    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /**
     * Places a new {@code request} on one of {@code workers}; the outcome is not {@linkplain Placed#found found} when
     * no worker is available at all.
     */
    public <W extends PlacementTarget, P> Placed<W, P> place(List<W> workers, RoutingRequest request,
                                                             Admission<? super W, P> admission) {
        return placeAvoiding(workers, request, Set.of(), admission, true);
    }

    /**
     * Places {@code request} again after failed attempts, avoiding the ids in {@code failed} unless no other worker
     * is available, and those in {@code barred} always; never held. Not found when no worker is available at all
     * outside {@code barred}.
     */
    public <W extends PlacementTarget, P> Placed<W, P> placeAgain(List<W> workers, RoutingRequest request,
                                                                  Set<String> failed, Set<String> barred,
                                                                  Admission<? super W, P> admission) {
        Set<String> avoid = new HashSet<>(failed);
        avoid.addAll(barred);
        Placed<W, P> placed = placeAvoiding(workers, request, avoid, admission, false);
        return placed.found() || barred.containsAll(avoid) ? placed
                : placeAvoiding(workers, request, barred, admission, false);
    }

    private <W extends PlacementTarget, P> Placed<W, P> placeAvoiding(List<W> workers, RoutingRequest request,
                                                                      Set<String> avoid,
                                                                      Admission<? super W, P> admission,
                                                                      boolean mayHold) {
        Set<String> refused = new HashSet<>();
        Decision decision = Decision.noHealthyWorkers();
        for (int round = 0; round <= workers.size(); round++) {
            List<WorkerView> views = new ArrayList<>(workers.size());
            for (W worker : workers) {
                WorkerView view = worker.view();
                boolean usable = !avoid.contains(worker.id()) && !refused.contains(worker.id())
                        && admission.offers(worker);
                views.add(usable ? view : new WorkerView(view.id(), false, view.inFlight(), view.reportedLoad()));
            }
            decision = policy.select(views, request);
            if (!decision.found() || decision.workerIndex() >= workers.size()) {
                break;
            }
            W chosen = workers.get(decision.workerIndex());
            String chosenId = views.get(decision.workerIndex()).id();
            P permit = admission.admit(chosen);
            if (permit == null) {
                // The policy booked this placement; it will never be sent, so it ends here.
                policy.onCompleted(chosenId, request, decision, EngineReport.unknown(false));
                refused.add(chosen.id());
                continue;
            }
            return new Placed<>(decision, chosen, permit,
                    new Placement(this, request, decision, chosenId, chosen.inFlightCount(), mayHold));
        }
        return new Placed<>(decision, null, null, null);
    }
}
