package dev.homing.cli.faults;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code java -jar homing.jar ...} process: started with the JVM of the running test and the flags
 * {@code bin/homing} gives, its stdout and stderr appended to a log file for debugging. Stopped through its
 * {@link Process} handle only, never by name.
 */
final class HomingProcess implements AutoCloseable {

    private static final long STOP_SECONDS = 10;

    private static final int LOG_TAIL_LINES = 20;

    private final String name;
    /** The java executable, its options and {@code -jar homing.jar}: the part a restart keeps. */
    private final List<String> javaAndJar;
    private final Path log;
    private Process process;
    /** Where this launch's output starts in the log, which keeps the output of earlier launches. */
    private long logStart;
    private volatile boolean killed;

    private HomingProcess(String name, List<String> javaAndJar, Path log) {
        this.name = name;
        this.javaAndJar = javaAndJar;
        this.log = log;
    }

    /**
     * Starts {@code homing <args>} with extra JVM options (a heap bound, a collector); output goes to
     * {@code <logDir>/<name>.log}, appended across restarts.
     */
    static HomingProcess start(String name, List<String> jvmOptions, List<String> args, Path logDir) {
        List<String> javaAndJar = new ArrayList<>();
        javaAndJar.add(ProcessHandle.current().info().command()
                .orElseThrow(() -> new IllegalStateException("cannot tell which java runs this test")));
        javaAndJar.addAll(binHomingFlags());
        javaAndJar.addAll(jvmOptions);
        javaAndJar.add("-jar");
        javaAndJar.add(homingJar().toString());
        HomingProcess started = new HomingProcess(name, List.copyOf(javaAndJar), logDir.resolve(name + ".log"));
        started.launch(args);
        return started;
    }

    /** The same JVM with these {@code homing} arguments (an engine restarted on its port); the old one must be gone. */
    void restart(List<String> newArgs) {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        launch(newArgs);
    }

    private void launch(List<String> newArgs) {
        killed = false;
        List<String> command = new ArrayList<>(javaAndJar);
        command.addAll(newArgs);
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            logStart = Files.size(log);
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Exited without being killed or closed by the test: a crash, or a bad command line. */
    boolean diedUnexpectedly() {
        return process != null && !killed && !process.isAlive();
    }

    Path log() {
        return log;
    }

    /**
     * Waits until this launch prints a line matching {@code announcement} (a port it bound, say) and returns the
     * match; fails at once, with the end of the log, if the process exits first.
     */
    Matcher awaitAnnouncement(Pattern announcement, Duration timeout) {
        return await(name + " to print " + announcement + " (log " + log + ")").atMost(timeout)
                .pollInterval(Duration.ofMillis(50)).ignoreExceptions().failFast(this::assertAlive)
                .until(() -> outputSinceLaunch().lines().map(announcement::matcher).filter(Matcher::find).findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    /** Throws, with the exit code and the end of the log, if the process exited without the test stopping it. */
    void assertAlive() {
        if (diedUnexpectedly()) {
            throw new AssertionError(name + " exited with code " + process.exitValue() + "; the end of its log:\n"
                    + logTail());
        }
    }

    private String outputSinceLaunch() throws IOException {
        byte[] all = Files.readAllBytes(log);
        return new String(all, (int) logStart, all.length - (int) logStart, StandardCharsets.UTF_8);
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /**
     * Waits up to {@code bound} (a bound only a failure reaches) for the process to exit by itself, as a start that
     * fails does, and returns its exit code.
     */
    int awaitOwnExit(Duration bound) throws InterruptedException {
        killed = true; // an exit the test expects, not a crash
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " was still running after " + bound + "; the end of its log:\n"
                    + logTail());
        }
        return process.exitValue();
    }

    /** SIGKILL: the process gets no chance to close anything, as when a GPU node dies. Waits until it is gone. */
    void kill() {
        killed = true;
        process.destroyForcibly();
        awaitExit();
    }

    /**
     * The most resident memory the process has used so far (Linux {@code VmHWM}), in bytes: heap, direct buffers,
     * code and thread stacks together. -1 where /proc is not there.
     */
    long peakResidentBytes() {
        Path status = Path.of("/proc", Long.toString(pid()), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * SIGTERM, as an orchestrator stops it, and the time it took to exit; null when it was still running after
     * {@code bound} (it is then killed).
     */
    Duration terminate(Duration bound) {
        killed = true;
        long start = System.nanoTime();
        process.destroy();
        try {
            if (process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process.destroyForcibly();
        awaitExit();
        return null;
    }

    /** SIGTERM, then SIGKILL if it has not stopped within a few seconds. */
    @Override
    public void close() {
        if (process == null || !process.isAlive()) {
            return;
        }
        killed = true;
        process.destroy();
        try {
            if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        awaitExit();
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException(name + " (pid " + process.pid() + ") did not exit");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** As {@code bin/homing}: native access for Netty, Unsafe on JDK 23+, compact object headers on JDK 25+. */
    private static List<String> binHomingFlags() {
        int feature = Runtime.version().feature();
        List<String> flags = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
        if (feature >= 23) {
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        if (feature >= 25) {
            flags.add("-XX:+UseCompactObjectHeaders");
        }
        return flags;
    }

    private static Path homingJar() {
        Path jar = Path.of(System.getProperty("homing.jar", "target/homing.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is not built: the fault suite runs after package (./mvnw verify)");
        }
        return jar;
    }

    @Override
    public String toString() {
        return name + (process == null ? "" : " (pid " + process.pid() + ")");
    }
}
