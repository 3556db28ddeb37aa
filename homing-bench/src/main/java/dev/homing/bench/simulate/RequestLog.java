package dev.homing.bench.simulate;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --request-log}: one JSON line per answered request of every run, for what the report's totals hide (which
 * requests hit, on which worker, after how long a gap). Each line names its run as the report's table does, so the
 * tree's and the exact view's runs of one command can be paired by conversation and turn. A request no worker took
 * is not answered and has no line. Thread-safe, though runs are sequential.
 */
public final class RequestLog implements Closeable {

    /** Writes nothing. */
    public static final RequestLog NONE = new RequestLog(null);

    private static final JsonMapper JSON = JsonMapper.builder().build();

    /**
     * One answered request.
     *
     * @param run                  the run's name in the report's table
     * @param conversation         the conversation's id (a Mooncake row's is its line's index)
     * @param turn                 the turn within it, from 0
     * @param worker               the worker it was sent to
     * @param arrivalMillis        when it reached the gateway, in simulated time
     * @param ttftMillis           from arrival to its first token (its end, when it wrote none)
     * @param promptTokens         its prompt's tokens
     * @param cachedTokens         what the engine found cached when its prefill started
     * @param branch               the policy's branch label
     * @param heldTokens           with the exact view modelled: the longest prefix of the prompt any engine held at
     *                             its arrival, by the gateway's index (a prefix still in prefill elsewhere is not
     *                             counted); absent otherwise
     * @param exactPredictedTokens with the exact view modelled: what it predicted cached on the chosen worker
     * @param treePredictedTokens  with the exact view modelled: what the tree predicted there
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Answered(String run, String conversation, int turn, String worker, double arrivalMillis,
                           double ttftMillis, int promptTokens, int cachedTokens, String branch, Integer heldTokens,
                           Integer exactPredictedTokens, Integer treePredictedTokens) {
    }

    private final BufferedWriter out;

    private RequestLog(BufferedWriter out) {
        this.out = out;
    }

    /** A log written to {@code file}, replacing what it held. */
    public static RequestLog open(Path file) throws IOException {
        return new RequestLog(Files.newBufferedWriter(file));
    }

    /** Whether lines are written at all: a run asks before it builds one. */
    boolean writes() {
        return out != null;
    }

    /** Writes {@code request}'s line; only on a log that {@link #writes()}. */
    void answered(Answered request) {
        String line = JSON.writeValueAsString(request);
        synchronized (this) {
            try {
                out.write(line);
                out.write('\n');
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the request log", e);
            }
        }
    }

    @Override
    public synchronized void close() throws IOException {
        if (out != null) {
            out.close();
        }
    }
}
