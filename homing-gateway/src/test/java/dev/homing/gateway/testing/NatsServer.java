package dev.homing.gateway.testing;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A real {@code nats-server} process on loopback for the replica tests, started and stopped by this object (by its
 * own process handle, never by name). The server picks its port ({@code -p -1}) and says it in its log; a restart
 * binds the same port again, as a NATS server coming back does. The binary is {@code NATS_SERVER}, else
 * {@code /usr/sbin/nats-server}, else {@code nats-server} on the PATH; without one the test is skipped, saying so.
 */
public final class NatsServer implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("Listening for client connections on [^:]+:(\\d+)");

    private final Path binary;
    private final int port;
    private final List<String> options;
    private Process process;

    private NatsServer(Path binary, Process process, int port, List<String> options) {
        this.binary = binary;
        this.process = process;
        this.port = port;
        this.options = options;
    }

    /**
     * Starts a server on a port of its choosing, with {@code options} (such as {@code --user u --pass p}); skips the
     * test when no {@code nats-server} is installed.
     */
    public static NatsServer start(String... options) {
        Path binary = binary();
        Assumptions.assumeTrue(binary != null, "nats-server is not installed (apt-get install nats-server, or set "
                + "NATS_SERVER): the replica tests need a real one");
        List<String> log = new CopyOnWriteArrayList<>();
        Process process = launch(binary, -1, List.of(options), log);
        int[] port = {-1};
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (String line : log) {
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    port[0] = Integer.parseInt(m.group(1));
                    return true;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("nats-server exited: " + String.join("\n", log));
            }
            return false;
        });
        return new NatsServer(binary, process, port[0], List.of(options));
    }

    private static Path binary() {
        String named = System.getenv("NATS_SERVER");
        if (named != null && Files.isExecutable(Path.of(named))) {
            return Path.of(named);
        }
        if (Files.isExecutable(Path.of("/usr/sbin/nats-server"))) {
            return Path.of("/usr/sbin/nats-server");
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, "nats-server");
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static Process launch(Path binary, int port, List<String> options, List<String> log) {
        List<String> command = new java.util.ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                String.valueOf(port)));
        command.addAll(options);
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        log.add(line);
                    }
                } catch (IOException e) {
                    // The process ended.
                }
            }, "nats-server-log");
            reader.setDaemon(true);
            reader.start();
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
    }

    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    /** Kills the server (the bus goes away under the replicas). */
    public void stop() {
        process.destroyForcibly();
        await().atMost(Duration.ofSeconds(30)).until(() -> !process.isAlive());
    }

    /** Starts the server again on the same port; waits until it listens. */
    public void restart() {
        List<String> log = new CopyOnWriteArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            if (process.isAlive()) {
                return log.stream().anyMatch(line -> LISTENING.matcher(line).find());
            }
            log.clear();
            process = launch(binary, port, options, log);
            return false;
        });
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
