package dev.homing.gateway.resilience;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One worker's circuit breaker: closed (traffic flows) -> open after {@code failureThreshold} consecutive worker
 * failures (no traffic) -> half-open once {@code openNanos} have passed (a few probe requests) -> closed after
 * {@code successThreshold} consecutive successes, or open again on any failure.
 *
 * <p>Better than the reference in three ways: half-open admits at most {@code successThreshold} probes at a time,
 * not all traffic (a recovering worker is not hit by the whole backlog at once); only worker failures count (see
 * {@link UpstreamOutcome}: a client's 4xx is a success, a 429 or 503 counts neither way); and an outcome is ignored
 * when it belongs to an earlier state, so the tail of requests sent before the circuit opened cannot re-open a
 * half-open circuit or close it on stale news. Each state change bumps a generation; a {@link Permit} carries the generation
 * it was granted in.
 *
 * <p>Invariants: in half-open, at most {@code successThreshold} probes are out at once; an outcome counts only in the
 * generation its permit was granted in. Guarded by the monitor and the generation check in {@link #record}.
 *
 * <p>Thread-safety: all state changes hold this object's monitor (a few field writes, uncontended except on a
 * busy worker); {@link #state()} is a volatile read. The listener is called after the monitor is released, from the
 * thread that caused the change, so it must be quick and thread-safe (a metrics counter).
 */
public final class CircuitBreaker {

    /** Circuit states, with the reference's gauge values for {@code smg_worker_cb_state}. */
    public enum State {
        CLOSED(0), OPEN(1), HALF_OPEN(2);

        private final int gaugeValue;

        State(int gaugeValue) {
            this.gaugeValue = gaugeValue;
        }

        public int gaugeValue() {
            return gaugeValue;
        }

        /** The label value for {@code smg_worker_cb_transitions_total{from,to}}. */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * Settings shared by every worker's breaker.
     *
     * @param failureThreshold {@code --cb-failure-threshold}: consecutive failures that open the circuit
     * @param successThreshold {@code --cb-success-threshold}: consecutive half-open successes that close it; also
     *                         the number of probes half-open lets through at a time
     * @param openDuration     {@code --cb-timeout-duration-secs}: how long an open circuit refuses traffic
     * @param unit             the unit of {@code openDuration}
     * @param disabled         {@code --disable-circuit-breaker}: always closed
     */
    public record Settings(int failureThreshold, int successThreshold, long openDuration, TimeUnit unit,
                           boolean disabled) {

        public Settings {
            if (failureThreshold < 1 || successThreshold < 1 || openDuration < 0) {
                throw new IllegalArgumentException("circuit breaker thresholds must be >= 1 and the timeout >= 0");
            }
        }

        long openNanos() {
            return unit.toNanos(openDuration);
        }
    }

    /** Told of every state change. */
    @FunctionalInterface
    public interface TransitionListener {
        void transition(String workerId, State from, State to);
    }

    /**
     * Leave to send one request, to be handed back through {@link #record} exactly once.
     *
     * @param generation the breaker's state generation when granted
     * @param probe      whether it holds one of half-open's probe places
     */
    public record Permit(long generation, boolean probe) {
    }

    private final String workerId;
    private final Settings settings;
    private final LongSupplier nanoClock;
    private final TransitionListener listener;

    private volatile State state = State.CLOSED;
    private long generation;
    private long changedAtNanos;
    private int consecutiveFailures;
    private int consecutiveSuccesses;
    private int probesInFlight;

    public CircuitBreaker(String workerId, Settings settings, LongSupplier nanoClock, TransitionListener listener) {
        this.workerId = workerId;
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.listener = listener;
        this.changedAtNanos = nanoClock.getAsLong();
    }

    /** The current state; an open circuit whose time is up reads (and becomes) half-open. */
    public State state() {
        if (state == State.OPEN && !settings.disabled()) {
            State from = null;
            synchronized (this) {
                if (state == State.OPEN && openTimeIsUp()) {
                    from = moveTo(State.HALF_OPEN);
                }
            }
            notifyIfChanged(from, State.HALF_OPEN);
        }
        return state;
    }

    /**
     * Would {@link #tryAcquire} grant a permit now? For building the policy's snapshot of available workers; it
     * takes nothing, so a worker it reports may still be refused by {@code tryAcquire} a moment later.
     */
    public boolean allowsRequests() {
        State s = state();
        if (s == State.CLOSED) {
            return true;
        }
        if (s == State.OPEN) {
            return false;
        }
        synchronized (this) {
            return state != State.HALF_OPEN || probesInFlight < settings.successThreshold();
        }
    }

    /** A permit to send one request to this worker, or null when the circuit refuses it. */
    public Permit tryAcquire() {
        if (settings.disabled()) {
            return new Permit(0, false);
        }
        State from = null;
        Permit permit;
        synchronized (this) {
            if (state == State.OPEN && openTimeIsUp()) {
                from = moveTo(State.HALF_OPEN);
            }
            permit = switch (state) {
                case CLOSED -> new Permit(generation, false);
                case OPEN -> null;
                case HALF_OPEN -> {
                    if (probesInFlight >= settings.successThreshold()) {
                        yield null;
                    }
                    probesInFlight++;
                    yield new Permit(generation, true);
                }
            };
        }
        notifyIfChanged(from, State.HALF_OPEN);
        return permit;
    }

    /** Hands back a permit with how its request ended. Call exactly once per permit. */
    public void record(Permit permit, UpstreamOutcome outcome) {
        if (settings.disabled()) {
            return;
        }
        State from = null;
        State to = null;
        synchronized (this) {
            if (permit.generation() != generation) {
                // Sent under an earlier state: its news is stale and its probe place (if any) is already gone.
                return;
            }
            if (permit.probe()) {
                probesInFlight--;
            }
            if (outcome.isWorkerFailure()) {
                consecutiveSuccesses = 0;
                consecutiveFailures++;
                if (state == State.HALF_OPEN
                        || state == State.CLOSED && consecutiveFailures >= settings.failureThreshold()) {
                    to = State.OPEN;
                    from = moveTo(to);
                }
            } else if (outcome.isWorkerSuccess()) {
                consecutiveFailures = 0;
                consecutiveSuccesses++;
                if (state == State.HALF_OPEN && consecutiveSuccesses >= settings.successThreshold()) {
                    to = State.CLOSED;
                    from = moveTo(to);
                }
            }
        }
        notifyIfChanged(from, to);
    }

    /** Hands back a permit whose request never reached the worker (the client left first): counts neither way. */
    public void release(Permit permit) {
        record(permit, UpstreamOutcome.BUSY);
    }

    public String workerId() {
        return workerId;
    }

    private boolean openTimeIsUp() {
        return nanoClock.getAsLong() - changedAtNanos >= settings.openNanos();
    }

    /** Changes state under the monitor; returns the state left. */
    private State moveTo(State next) {
        State from = state;
        state = next;
        generation++;
        changedAtNanos = nanoClock.getAsLong();
        consecutiveFailures = 0;
        consecutiveSuccesses = 0;
        probesInFlight = 0;
        return from;
    }

    private void notifyIfChanged(State from, State to) {
        if (from != null && from != to) {
            listener.transition(workerId, from, to);
        }
    }

    @Override
    public String toString() {
        return "CircuitBreaker[" + workerId + " " + state + "]";
    }
}
