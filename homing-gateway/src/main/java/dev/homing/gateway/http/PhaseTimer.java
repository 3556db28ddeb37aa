package dev.homing.gateway.http;

import io.netty.channel.Channel;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of a connection that is always in one phase with at most one deadline, shared by
 * {@link ClientDeadlines} (HTTP/1.x) and {@link Http2Deadlines} (HTTP/2). Invariant: at most one check is scheduled,
 * and it falls no later than the current phase's deadline. A check runs against the state of the moment: one that
 * finds the current phase without a deadline, or a closed channel, does nothing; one that comes early schedules the
 * next at the current phase's deadline.
 *
 * <p>Why a check is not moved at every phase change: a keep-alive connection changes phase three or four times a
 * request (idle, head, waiting, idle), and cancelling and scheduling a task each time took about 3 % of the event
 * loop's samples at saturation. A phase whose deadline falls after the pending check leaves it alone (the check,
 * early then, schedules the next), so a busy connection schedules about once per timeout rather than per request;
 * only a phase whose deadline falls earlier (a first head, a body after a long idle) moves the check forward.
 * Not thread-safe: confined to its channel's event loop.
 *
 * @param <P> the phases of the connection
 */
final class PhaseTimer<P> {

    /** What the timer asks of its connection. */
    interface Phases<P> {

        /** The phase the connection is in now. */
        P phase();

        /** When {@code phase}'s deadline falls, in {@link System#nanoTime()} terms; {@link Long#MAX_VALUE} for none. */
        long deadline(P phase);

        /** A check of {@code phase} is about to compare its deadline with now: a last chance to move it. */
        default void checking(P phase) { }

        /** The deadline of {@code phase}, the phase still, has passed. */
        void expired(P phase);
    }

    private final Phases<P> phases;
    private Channel channel;
    private ScheduledFuture<?> check;
    /** When the pending check falls, in {@link System#nanoTime()} terms; meaningless while there is none. */
    private long checkAtNanos;

    PhaseTimer(Phases<P> phases) {
        this.phases = phases;
    }

    /** Times on {@code channel} from now on; until then nothing is scheduled. */
    void attach(Channel channel) {
        this.channel = channel;
    }

    /** After a change of phase or deadline: schedules a check by the current phase's deadline, if none falls by then. */
    void update() {
        long deadline = phases.deadline(phases.phase());
        if (deadline != Long.MAX_VALUE && (check == null || deadline - checkAtNanos < 0)) {
            cancel();
            schedule(deadline);
        }
    }

    void cancel() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(long deadline) {
        if (channel != null && channel.isActive()) {
            checkAtNanos = deadline;
            check = channel.eventLoop().schedule(this::checkDeadline, Math.max(0, deadline - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void checkDeadline() {
        check = null;
        P phase = phases.phase();
        if (phases.deadline(phase) == Long.MAX_VALUE || !channel.isActive()) {
            return;
        }
        phases.checking(phase);
        long deadline = phases.deadline(phase);
        if (System.nanoTime() - deadline < 0) {
            schedule(deadline);
            return;
        }
        phases.expired(phase);
    }
}
