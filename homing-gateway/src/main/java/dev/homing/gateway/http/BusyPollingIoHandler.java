package dev.homing.gateway.http;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import java.util.function.LongSupplier;

/**
 * An event loop's I/O handler ({@code --busy-poll-us}) that, for a while after its last I/O, polls without sleeping:
 * it runs the transport's handler with blocking forbidden, over and over within one turn of the loop, until a poll
 * finds I/O, the loop has a task or a timer due, or the window has passed with nothing ready; only then does it let
 * the handler block again. (Spinning inside the turn, rather than giving the loop a turn with nothing to do each
 * time, more than halved the added latency of a sequential request: 0.010 against 0.024 ms, 6 rounds each.)
 *
 * <p>Why: a request that finds the gateway idle pays for waking its thread twice (the client's request, the worker's
 * answer), and on a virtual machine a sleeping core is woken by the hypervisor, tens of microseconds each time; the
 * gateway's code and data also leave the core's caches while it sleeps. With a fast worker and a client that sends
 * again at once, both gaps are shorter than the window, so the thread is still running when the bytes arrive. The
 * price is CPU: up to the window's length per idle gap, spent whether or not anything comes (a loop that always has
 * work never spins). Off by default, as HAProxy's {@code busy-polling}: under a CPU quota the spin is throttled time.
 *
 * <p>The spin yields the core on each empty poll ({@link Thread#yield}), so a runnable thread sharing it is not held
 * off for the window. Best on epoll: Netty's io_uring handler allocates a little on every call, and a spinning loop
 * calls it thousands of times a request (four times the bytes a request, docs/BENCHMARKS.md).
 */
final class BusyPollingIoHandler implements IoHandler {

    private final IoHandler transport;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private final NonBlocking nonBlocking = new NonBlocking();
    /** When the last turn that handled I/O ended; a window's length in the past at first, so no spin before any. */
    private long lastIoNanos;

    BusyPollingIoHandler(IoHandler transport, long windowNanos, LongSupplier nanoTime) {
        this.transport = transport;
        this.windowNanos = windowNanos;
        this.nanoTime = nanoTime;
        this.lastIoNanos = nanoTime.getAsLong() - windowNanos;
    }

    /** {@code transport}'s handlers, each spinning for {@code windowMicros} after I/O; {@code transport} for 0. */
    static IoHandlerFactory factory(IoHandlerFactory transport, long windowMicros) {
        if (windowMicros <= 0) {
            return transport;
        }
        long windowNanos = windowMicros * 1_000;
        return new IoHandlerFactory() {
            @Override
            public IoHandler newHandler(io.netty.util.concurrent.ThreadAwareExecutor executor) {
                return new BusyPollingIoHandler(transport.newHandler(executor), windowNanos, System::nanoTime);
            }

            @Override
            public boolean isChangingThreadSupported() {
                return transport.isChangingThreadSupported();
            }
        };
    }

    @Override
    public int run(IoHandlerContext context) {
        if (!context.canBlock()) {
            return observed(transport.run(context));
        }
        nonBlocking.loop = context;
        while (true) {
            long now = nanoTime.getAsLong();
            if (now - lastIoNanos >= windowNanos) {
                return observed(transport.run(context));
            }
            int handled = transport.run(nonBlocking);
            if (handled > 0) {
                return observed(handled);
            }
            // Back to the loop when it has tasks or a timer is due; the window is checked again at its next turn.
            long deadline = context.deadlineNanos();
            if (!context.canBlock() || deadline != -1 && deadline - now <= 0) {
                return 0;
            }
            Thread.yield();
        }
    }

    /** {@code handled}, the turn's I/O count, remembered as the start of a window when it is some. */
    private int observed(int handled) {
        if (handled > 0) {
            lastIoNanos = nanoTime.getAsLong();
        }
        return handled;
    }

    @Override
    public void initialize() {
        transport.initialize();
    }

    @Override
    public void prepareToDestroy() {
        transport.prepareToDestroy();
    }

    @Override
    public void destroy() {
        transport.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return transport.register(handle);
    }

    @Override
    public void wakeup() {
        transport.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return transport.isCompatible(handleType);
    }

    /** The event loop's context with blocking forbidden: the transport polls and returns at once. */
    private static final class NonBlocking implements IoHandlerContext {
        IoHandlerContext loop;

        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return loop.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return loop.deadlineNanos();
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            loop.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return loop.shouldReportActiveIoTime();
        }
    }
}
