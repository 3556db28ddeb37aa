package dev.homing.gateway.http;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the spinning handler lets the transport block and when it hands the turn back, on a clock the test owns: each
 * call into the transport takes {@link #POLL} nanoseconds of it.
 */
class BusyPollingIoHandlerTest {

    private static final long WINDOW = 200_000;
    private static final long POLL = 50_000;

    private long now = 1_000_000_000L;
    private final Transport transport = new Transport();
    private final BusyPollingIoHandler handler = new BusyPollingIoHandler(transport, WINDOW, () -> now);
    private final Loop loop = new Loop();

    @Test
    void beforeAnyIoTheLoopBlocksAsUsual() {
        transport.handles(0);

        assertThat(handler.run(loop)).isZero();

        assertThat(transport.mayBlock).containsExactly(true);
    }

    @Test
    void afterIoTheTransportPollsWithoutBlockingWithinOneTurnUntilIoComes() {
        transport.handles(3, 0, 0, 2);

        assertThat(handler.run(loop)).isEqualTo(3);   // blocked, woke with I/O
        assertThat(handler.run(loop)).isEqualTo(2);   // two empty polls, then I/O: one turn

        assertThat(transport.mayBlock).containsExactly(true, false, false, false);
    }

    @Test
    void aWindowWithoutIoEndsInABlockingWaitAndIoStartsTheWindowAgain() {
        transport.handles(1, 0, 0, 0, 0, 4, 7);

        handler.run(loop);
        assertThat(handler.run(loop)).as("four empty polls fill the window; then it blocks, and wakes with I/O")
                .isEqualTo(4);
        assertThat(handler.run(loop)).isEqualTo(7);

        assertThat(transport.mayBlock).containsExactly(true, false, false, false, false, true, false);
    }

    @Test
    void aTaskForTheLoopEndsTheSpinSoTheLoopRunsIt() {
        transport.handles(1, 0);
        transport.onPoll(2, () -> loop.tasks = true);

        assertThat(handler.run(loop)).isEqualTo(1);
        assertThat(handler.run(loop)).isZero();

        assertThat(transport.mayBlock).containsExactly(true, false);
        loop.tasks = false;
    }

    @Test
    void aTimerFallingDueEndsTheSpinSoTheLoopRunsIt() {
        transport.handles(1, 0, 0, 0);
        loop.deadline = now + 3 * POLL;

        handler.run(loop);
        assertThat(handler.run(loop)).isZero();

        assertThat(transport.mayBlock).containsExactly(true, false, false, false);
        assertThat(transport.deadlines).containsOnly(loop.deadline);
    }

    @Test
    void aLoopWithTasksWaitingIsPassedOnAsItIs() {
        transport.handles(1, 0);
        loop.tasks = true;

        handler.run(loop);
        handler.run(loop);

        assertThat(transport.mayBlock).containsExactly(false, false);
    }

    @Test
    void noWindowIsTheTransportsOwnFactory() {
        IoHandlerFactory own = executor -> transport;

        assertThat(BusyPollingIoHandler.factory(own, 0)).isSameAs(own);
        assertThat(BusyPollingIoHandler.factory(own, 50)).isNotSameAs(own);
    }

    /** A transport's handler that records each call and answers with the I/O counts it was given, in order. */
    private final class Transport implements IoHandler {
        final List<Boolean> mayBlock = new ArrayList<>();
        final List<Long> deadlines = new ArrayList<>();
        private final Deque<Integer> handled = new ArrayDeque<>();
        private int pollToAct = -1;
        private Runnable action;

        void handles(Integer... counts) {
            handled.addAll(List.of(counts));
        }

        /** Runs {@code whatHappens} during the {@code n}-th call (from 1). */
        void onPoll(int n, Runnable whatHappens) {
            pollToAct = n;
            action = whatHappens;
        }

        @Override
        public int run(IoHandlerContext context) {
            mayBlock.add(context.canBlock());
            deadlines.add(context.deadlineNanos());
            now += POLL;
            if (mayBlock.size() == pollToAct) {
                action.run();
            }
            return handled.removeFirst();
        }

        @Override
        public IoRegistration register(IoHandle handle) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void wakeup() {
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return true;
        }
    }

    /** The event loop's own context: blocking allowed unless it has tasks; a timer due at {@code deadline}. */
    private static final class Loop implements IoHandlerContext {
        boolean tasks;
        long deadline = -1;

        @Override
        public boolean canBlock() {
            return !tasks;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return deadline - currentTimeNanos;
        }

        @Override
        public long deadlineNanos() {
            return deadline;
        }
    }
}
