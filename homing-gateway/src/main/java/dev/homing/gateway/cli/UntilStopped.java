package dev.homing.gateway.cli;

import java.io.PrintWriter;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * How a serving command runs: start, then serve until the process is told to stop (Ctrl-C, SIGTERM), and close on
 * the way out. Used by {@code homing launch}, {@code homing sim-engine} and {@code homing demo}.
 */
public final class UntilStopped {

    private UntilStopped() {
    }

    /**
     * Starts with {@code start}, hands the running server to {@code started}, and blocks until the JVM shuts down,
     * which closes it.
     *
     * @param command what the error line starts with: {@code homing sim-engine}
     * @return 0 after a stop, 1 when it could not start (a port in use or the like: one sentence on {@code err}, not
     *         a stack trace)
     */
    public static <T extends AutoCloseable> int serve(Supplier<T> start, Consumer<T> started, PrintWriter err,
                                                     String command) throws InterruptedException {
        T running;
        try {
            running = start.get();
        } catch (IllegalArgumentException | IllegalStateException e) {
            err.println(command + ": cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        started.accept(running);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                running.close();
            } catch (Exception e) {
                err.println(command + ": while stopping: " + e);
                err.flush();
            } finally {
                stopped.countDown();
            }
        }, "homing-shutdown"));
        stopped.await();
        return 0;
    }
}
