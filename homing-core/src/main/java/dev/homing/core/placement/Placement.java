package dev.homing.core.placement;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PendingPrefill;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;

import java.util.Locale;

/**
 * One request on the worker a policy placed it on, from the placement to its end: the placement protocol, written
 * once for both of its drivers (the gateway's exchange, in real time; the offline simulator, in virtual time).
 *
 * <pre>
 *   placed ─┬──────────────────────▶ PLACED ──sent──▶ SENT ──firstToken──▶ FIRST_TOKEN
 *           │                          ▲   │             │                      │
 *           └─▶ HELD ──endHold─────────┘   │ abandoned   │ completed,           │ completed,
 *               (waits for a prefill)      │             │ endedWithoutReport   │ endedWithoutReport
 *                                          ▼             ▼                      ▼
 *                                        ENDED ◀─────────┴──────────────────────┘
 * </pre>
 * A first placement starts {@link Phase#HELD} when its decision asks it to wait for an earlier request's prefill
 * that is not done yet, else (and always on a retry) {@link Phase#PLACED}. The driver owns the wait's timers (the
 * gateway a Vert.x timer, the simulator its event queue), reports the first of its endings (released, timed out,
 * client gone), and sends the request when the wait is over.
 *
 * <p>Invariants:
 * <ul>
 *   <li>The request counts on its worker's {@link InFlightCount} from construction until {@link Phase#ENDED}: one
 *       up, one down, whichever way it ends.
 *   <li>The policy hears {@link RoutingPolicy#onFirstToken} at most once and {@link RoutingPolicy#onCompleted}
 *       exactly once, at the end, whose report says whether the first token was told. Drivers never call the
 *       policy's feedback themselves: only this class does (and {@link Placer}, for a choice the driver refused
 *       before any placement existed).
 *   <li>A request whose client left while it was held is never sent.
 *   <li>Every transition is checked: one the diagram does not have throws {@link IllegalStateException}. That is a
 *       driver's bug, never a request's, so drivers check their own state before they call.
 * </ul>
 * Held time is measured on the injected clock.
 *
 * <p>Not thread-safe: a placement is confined to its driver's thread (the gateway exchange's event loop, the
 * simulator's loop). Only its worker's count is shared, and that is atomic.
 */
public final class Placement {

    /** Where the request is; see the diagram above. */
    public enum Phase {
        /** Placed and counted on its worker, waiting for an earlier request's prefill before it is sent. */
        HELD,
        /** Placed and counted on its worker, free to be sent. */
        PLACED,
        /** Sent to the worker; no token back yet. */
        SENT,
        /** The worker answered its first token: this request's prefill is done. */
        FIRST_TOKEN,
        /** Over; its worker's count and the policy have been told. */
        ENDED
    }

    /** How a hold ended, whichever came first; {@link #label()} is the metrics label. */
    public enum HoldEnding {
        /** The awaited prefill is done: the prefix is in the engine's cache. */
        RELEASED,
        /** The awaited prefill took longer than the wait allows. */
        TIMED_OUT,
        /** The client left while the request waited: it is never sent. */
        CLIENT_GONE;

        /** {@code released}, {@code timed_out}, {@code client_gone}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What a held request waits for: {@code awaited} done, or {@code maxNanos} from {@code sinceNanos} on the
     * placement's clock, whichever comes first.
     */
    public record Hold(PendingPrefill awaited, long sinceNanos, long maxNanos) {

        /** When the wait runs out. */
        public long untilNanos() {
            return sinceNanos + maxNanos;
        }
    }

    /** The step that made it: its policy is told, its clock times the hold. */
    private final Placer placer;
    private final RoutingRequest request;
    private final Decision decision;
    /** The worker's id as the policy knows it (its view's id). */
    private final String workerId;
    private final InFlightCount count;
    /** The wait this placement started with; null when it was free to be sent at once. */
    private final Hold hold;
    private Phase phase;
    /** How the hold ended; null while held or when there was none. */
    private HoldEnding holdEnding;

    /**
     * Placed by {@link Placer}: counted on its worker from here.
     *
     * @param mayHold whether the decision's hold is honoured (a first placement) or not (a retry)
     */
    Placement(Placer placer, RoutingRequest request, Decision decision, String workerId, InFlightCount count,
              boolean mayHold) {
        count.placed();
        this.placer = placer;
        this.request = request;
        this.decision = decision;
        this.workerId = workerId;
        this.count = count;
        Decision.Hold asked = decision.hold();
        this.hold = !mayHold || asked == null || asked.awaited().isDone() ? null
                : new Hold(asked.awaited(), placer.nanoTime(), asked.maxNanos());
        this.phase = hold == null ? Phase.PLACED : Phase.HELD;
    }

    public Phase phase() {
        return phase;
    }

    /** The wait this placement started with, or null when it was free to be sent at once. */
    public Hold hold() {
        return hold;
    }

    /** HELD to PLACED: the first of the hold's endings came. Returns how long the request was held. */
    public long endHold(HoldEnding ending) {
        require(phase == Phase.HELD, "end a hold");
        phase = Phase.PLACED;
        holdEnding = ending;
        return placer.nanoTime() - hold.sinceNanos();
    }

    /** PLACED to SENT: the request goes to its worker. */
    public void sent() {
        require(phase == Phase.PLACED && holdEnding != HoldEnding.CLIENT_GONE, "send");
        phase = Phase.SENT;
    }

    /** SENT to FIRST_TOKEN: the worker's first token (the gateway: its first response byte); tells the policy. */
    public void firstToken() {
        require(phase == Phase.SENT, "report a first token");
        phase = Phase.FIRST_TOKEN;
        placer.policy().onFirstToken(workerId, decision);
    }

    /** Sent to ENDED: the engine answered and reported its prompt and cached tokens. */
    public void completed(int promptTokens, int cachedTokens) {
        requireSent("complete");
        end(new EngineReport(promptTokens, cachedTokens, phase == Phase.FIRST_TOKEN));
    }

    /** Sent to ENDED with nothing reported: the attempt failed, was cut short, or its answer carried no usage. */
    public void endedWithoutReport() {
        requireSent("end");
        end(EngineReport.unknown(phase == Phase.FIRST_TOKEN));
    }

    /** PLACED to ENDED: the request will never be sent (its client left, or the worker refused it outright). */
    public void abandoned() {
        require(phase == Phase.PLACED, "abandon");
        end(EngineReport.unknown(false));
    }

    private void end(EngineReport report) {
        phase = Phase.ENDED;
        count.ended();
        placer.policy().onCompleted(workerId, request, decision, report);
    }

    private void requireSent(String action) {
        require(phase == Phase.SENT || phase == Phase.FIRST_TOKEN, action);
    }

    private void require(boolean legal, String action) {
        if (!legal) {
            throw new IllegalStateException("cannot " + action + " a placement on " + workerId + " in phase " + phase
                    + (holdEnding == null ? "" : " (hold " + holdEnding.label() + ")"));
        }
    }
}
