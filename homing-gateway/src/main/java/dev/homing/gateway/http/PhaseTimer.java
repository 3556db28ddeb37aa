package dev.homing.gateway.http;

import io.netty.channel.Channel;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one timer of a connection that is always in one phase with at most one deadline, shared by
 * {@link ClientDeadlines} (HTTP/1.x) and {@link Http2Deadlines} (HTTP/2). Invariant: at most one check is scheduled,
 * for the phase in {@code scheduledFor}; a phase change cancels it and schedules the new phase's. A check runs
 * against the state of the moment: one that comes after the phase changed, or on a closed channel, does nothing, one
 * that comes early schedules the next, so progress within a phase only moves a timestamp, never a timer. Not
 * thread-safe: confined to its channel's event loop.
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
    private P scheduledFor;

    PhaseTimer(Phases<P> phases) {
        this.phases = phases;
    }

    /** Times on {@code channel} from now on; until then nothing is scheduled. */
    void attach(Channel channel) {
        this.channel = channel;
    }

    /** Reschedules only when the phase changed; within a phase a check that comes early schedules the next. */
    void update() {
        P phase = phases.phase();
        if (phase != scheduledFor) {
            cancel();
            scheduledFor = phase;
            schedule(phase);
        }
    }

    void cancel() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    private void schedule(P phase) {
        long deadline = phases.deadline(phase);
        if (deadline != Long.MAX_VALUE && channel != null && channel.isActive()) {
            check = channel.eventLoop().schedule(this::checkDeadline, Math.max(0, deadline - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void checkDeadline() {
        check = null;
        P phase = phases.phase();
        if (phase != scheduledFor || !channel.isActive()) {
            return;
        }
        phases.checking(phase);
        if (System.nanoTime() < phases.deadline(phase)) {
            schedule(phase);
            return;
        }
        phases.expired(phase);
    }
}
