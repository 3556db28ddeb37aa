package dev.homing.bench.live;

import io.vertx.core.Vertx;
import java.io.Console;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Shows a run's progress while it runs: on a terminal one line rewritten in place every second, otherwise (a log,
 * a pipe) a plain line every ten seconds, so logs stay short. Reads {@link ResultAggregator#snapshot}s on a Vert.x
 * timer; {@link #stop} ends the line. Not thread-safe: start and stop from one thread.
 */
public final class ProgressReporter {

    private final PrintStream out;
    private final boolean terminal;
    private long timer = -1;
    private Vertx vertx;
    private long lastEnded;
    private long lastNanos;

    public ProgressReporter(PrintStream out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    /**
     * Whether the process runs on a terminal (picks the in-place line). From JDK 22 {@link System#console()} is
     * not null even when the streams are redirected, and {@code Console.isTerminal()} tells; it is called by
     * reflection because the code is compiled for 21.
     */
    public static boolean onTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    public void start(Vertx owner, ResultAggregator results) {
        this.vertx = owner;
        long startNanos = System.nanoTime();
        lastNanos = startNanos;
        timer = owner.setPeriodic(terminal ? 1_000 : 10_000, id -> print(results.snapshot(), startNanos));
    }

    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
            if (terminal) {
                out.println();
            }
        }
    }

    private void print(ResultAggregator.Snapshot now, long startNanos) {
        long nanos = System.nanoTime();
        double rate = (now.ended() - lastEnded) * 1e9 / Math.max(1, nanos - lastNanos);
        lastEnded = now.ended();
        lastNanos = nanos;
        Double hit = now.usageHitRate();
        String line = String.format(Locale.ROOT,
                "%6.1f s  sent %d  ended %d  in flight %d  errors %d  %.1f req/s  TTFT p50 %.1f ms  hit %s",
                (nanos - startNanos) / 1e9, now.sent(), now.ended(), now.inFlight(), now.failed(), rate,
                now.ttftMicros().getValueAtPercentile(50) / 1e3,
                hit == null ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * hit));
        if (terminal) {
            out.print("\r" + line + "   ");
            out.flush();
        } else {
            out.println(line);
        }
    }
}
