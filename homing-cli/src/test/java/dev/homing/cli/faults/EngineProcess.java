package dev.homing.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * A simulated engine process ({@code homing sim-engine}) on loopback, recording the id of every request it answers in
 * full ({@code --record-request-ids}) so that a request answered twice shows. It binds a port the OS picks, and says
 * which: a port picked by the test and handed over could be taken by another socket before the engine binds it. It
 * can be killed and restarted on that same port with the same flags; the record file carries on across restarts.
 */
final class EngineProcess {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern LISTENING = Pattern.compile("engine listening on http://127\\.0\\.0\\.1:(\\d+)");

    private final HomingProcess process;
    private final List<String> flags;
    private final Path answeredIds;
    /** Learnt from the engine's first start; 0 until then. */
    private int port;

    private EngineProcess(HomingProcess process, List<String> flags, Path answeredIds) {
        this.process = process;
        this.flags = flags;
        this.answeredIds = answeredIds;
    }

    /** Starts the engine and returns without waiting: engines of one fleet start side by side. */
    static EngineProcess start(String name, List<String> jvmOptions, List<String> flags, Path dir) {
        Path answeredIds = dir.resolve(name + ".answered-ids");
        List<String> allFlags = new ArrayList<>(List.of("--record-request-ids", answeredIds.toString()));
        allFlags.addAll(flags);
        return new EngineProcess(HomingProcess.start(name, jvmOptions, args(0, allFlags), dir), List.copyOf(allFlags),
                answeredIds);
    }

    private static List<String> args(int port, List<String> flags) {
        List<String> args = new ArrayList<>(List.of("sim-engine", "--host", "127.0.0.1", "--port",
                Integer.toString(port)));
        args.addAll(flags);
        return args;
    }

    String name() {
        return process.name();
    }

    /** The engine's address; the first call waits until the engine has bound its port. */
    synchronized String url() {
        if (port == 0) {
            port = Integer.parseInt(process.awaitAnnouncement(LISTENING, ProcessFleet.START_TIMEOUT).group(1));
        }
        return "http://127.0.0.1:" + port;
    }

    HomingProcess process() {
        return process;
    }

    /** SIGKILL, and wait until the process is gone. */
    void kill() {
        process.kill();
    }

    /** Starts the same engine again on the same port. */
    void restart() {
        if (port == 0) {
            throw new IllegalStateException(name() + " never said its port");
        }
        process.restart(args(port, flags));
    }

    /** Turns the engine's injected faults off ({@code POST /clear_faults}). */
    void clearFaults(FaultClient control) throws IOException {
        int status = control.send("POST", url() + "/clear_faults").statusCode();
        if (status != 200) {
            throw new IllegalStateException(name() + " answered " + status + " to /clear_faults");
        }
    }

    /** Requests the engine is running or queueing now, from its {@code /get_load}. */
    int requestsInFlight(FaultClient control) {
        return JSON.readTree(control.get(url() + "/get_load").body()).path(0).path("num_reqs").asInt();
    }

    /** The request ids this engine answered in full, in order, one entry per answer (all its lives). */
    List<String> answeredIds() {
        try {
            return Files.exists(answeredIds) ? Files.readAllLines(answeredIds) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return name() + " " + url();
    }
}
