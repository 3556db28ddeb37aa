package dev.homing.cli.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Bounded steady load: {@code requests} requests from {@code clients} concurrent clients, each sending its next
 * request when the previous one is answered (a closed loop, so the load follows what the fleet can serve). Runs in
 * the background so a scenario can inject its fault while it goes on.
 */
final class LoadRun {

    private final ExecutorService clients;
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean stopped;
    private final AtomicInteger answered = new AtomicInteger();
    private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();

    private LoadRun(int clientCount) {
        this.clients = Executors.newFixedThreadPool(clientCount);
    }

    /** Starts the load; request {@code i} (0 to {@code requests - 1}) is sent by {@code send.apply(i)}. */
    static LoadRun start(int clientCount, int requests, IntFunction<Answer> send) {
        LoadRun run = new LoadRun(clientCount);
        for (int c = 0; c < clientCount; c++) {
            run.clients.execute(() -> {
                for (int i = run.next.getAndIncrement(); i < requests && !run.stopped; i = run.next.getAndIncrement()) {
                    run.answers.add(send.apply(i));
                    run.answered.incrementAndGet();
                }
            });
        }
        run.clients.shutdown();
        return run;
    }

    /** Requests answered so far, whatever the answer. */
    int answered() {
        return answered.get();
    }

    /** Sends no more requests; those in flight still get their answers. */
    void stop() {
        stopped = true;
    }

    /** Waits for the last answer; fails if the load has not finished within {@code timeout}. */
    List<Answer> join(Duration timeout) throws InterruptedException {
        if (!clients.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            clients.shutdownNow();
            throw new AssertionError("load still running after " + timeout + ": " + answered() + " answered");
        }
        return new ArrayList<>(answers);
    }
}
