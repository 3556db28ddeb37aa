package dev.homing.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.json.JsonMapper;

/**
 * A simulated engine process ({@code homing sim-engine}) on a fixed loopback port, recording the id of every request
 * it answers in full ({@code --record-request-ids}) so that a request answered twice shows. It can be killed and
 * restarted on the same port with the same flags; the record file carries on across restarts.
 */
final class EngineProcess {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HomingProcess process;
    private final int port;
    private final Path answeredIds;

    private EngineProcess(HomingProcess process, int port, Path answeredIds) {
        this.process = process;
        this.port = port;
        this.answeredIds = answeredIds;
    }

    static EngineProcess start(String name, List<String> jvmOptions, List<String> flags, Path dir) {
        int port = LoopbackPorts.free();
        Path answeredIds = dir.resolve(name + ".answered-ids");
        List<String> args = new ArrayList<>(List.of("sim-engine", "--host", "127.0.0.1", "--port",
                Integer.toString(port), "--record-request-ids", answeredIds.toString()));
        args.addAll(flags);
        return new EngineProcess(HomingProcess.start(name, jvmOptions, args, dir), port, answeredIds);
    }

    String name() {
        return process.name();
    }

    String url() {
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
        process.restart();
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
