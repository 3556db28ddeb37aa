package dev.homing.bench.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.stream.Stream;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Mooncake trace format (JSON lines of {@code timestamp} in ms, {@code input_length}, {@code output_length} and
 * {@code hash_ids}, one prefix block id per 512 tokens) as a workload of one-turn conversations whose text comes
 * from {@link BlockText}.
 *
 * <p>Arrival times are the trace's timestamps divided by {@code rateScale} (2 replays twice as fast). The public
 * conversation trace quantizes timestamps into buckets of about 3 s; with {@code spreadWithinBuckets} the requests
 * of a bucket get arrival times drawn uniformly (seeded) over the bucket, that is from its timestamp up to the next
 * distinct timestamp, kept in trace order; the last bucket, which has no successor, takes the previous bucket's
 * width. Without it, a bucket's requests arrive together.
 *
 * <p>Beware: every request of that trace starts with block 0, so a router keyed on the first 512 tokens (or the
 * first message) sends everything to one worker.
 */
public record MooncakeTrace(Path file, Options options) implements Workload {

    /**
     * @param rateScale           speed-up of the replay (1 = as recorded), positive
     * @param spreadWithinBuckets spread the requests of one timestamp uniformly until the next timestamp
     * @param seed                seeds the spread
     */
    public record Options(double rateScale, boolean spreadWithinBuckets, long seed, Limits limits) {

        public static final Options AS_RECORDED = new Options(1.0, false, 0, Limits.NONE);

        public Options {
            if (!(rateScale > 0) || !Double.isFinite(rateScale)) {
                throw new IllegalArgumentException("rate scale must be positive: " + rateScale);
            }
            Objects.requireNonNull(limits, "limits");
        }
    }

    /** One row of the trace with its arrival time after scaling and spreading. */
    public record Row(int index, long arrivalMicros, int inputTokens, int outputTokens, List<Long> blockIds) {

        public Row {
            blockIds = List.copyOf(blockIds);
        }

        /** The row as a one-turn conversation; its text is built here, 4 characters a token. */
        public Conversation toConversation() {
            String text = BlockText.of(blockIds, inputTokens);
            return new Conversation("mooncake-" + index, arrivalMicros, "",
                    List.of(new Turn(text, 0, outputTokens, blockIds)));
        }
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public MooncakeTrace {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "mooncake-" + LazyStream.baseName(file, ".jsonl");
    }

    @Override
    public Stream<Conversation> conversations() {
        return rows().map(Row::toConversation);
    }

    /** The rows without text, for consumers that only need block ids and lengths (the bounds, the simulator). */
    public Stream<Row> rows() {
        return LazyStream.ofFile(file, Rows::new);
    }

    private record Raw(int index, long timestampMs, int inputTokens, int outputTokens, List<Long> blockIds) {
    }

    /** Reads one timestamp bucket ahead, so a bucket's width is known before its rows are handed out. */
    private final class Rows implements Iterator<Row> {

        private final BufferedReader reader;
        private final SplitMix64 random = new SplitMix64(options.seed());
        private final ArrayDeque<Row> ready = new ArrayDeque<>();
        private Raw lookahead;
        private int lineNumber;
        private int rowCount;
        private int index;
        private long previousWidthMs;
        private boolean done;

        Rows(BufferedReader reader) {
            this.reader = reader;
            this.lookahead = readRaw();
        }

        @Override
        public boolean hasNext() {
            if (ready.isEmpty() && !done) {
                fillBucket();
            }
            return !ready.isEmpty();
        }

        @Override
        public Row next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return ready.poll();
        }

        private void fillBucket() {
            if (lookahead == null) {
                done = true;
                return;
            }
            List<Raw> bucket = new ArrayList<>();
            long timestamp = lookahead.timestampMs();
            while (lookahead != null && lookahead.timestampMs() == timestamp) {
                bucket.add(lookahead);
                lookahead = readRaw();
            }
            long widthMs = lookahead != null ? lookahead.timestampMs() - timestamp : previousWidthMs;
            previousWidthMs = widthMs;
            double[] offsetsMs = new double[bucket.size()];
            if (options.spreadWithinBuckets()) {
                for (int i = 0; i < offsetsMs.length; i++) {
                    offsetsMs[i] = random.nextDouble() * widthMs;
                }
                Arrays.sort(offsetsMs);
            }
            for (int i = 0; i < bucket.size(); i++) {
                Raw raw = bucket.get(i);
                long arrival = (long) ((raw.timestampMs() + offsetsMs[i]) * 1000.0 / options.rateScale());
                if (!options.limits().admits(index, arrival)) {
                    done = true;
                    return;
                }
                index++;
                ready.add(new Row(raw.index(), arrival, raw.inputTokens(), raw.outputTokens(), raw.blockIds()));
            }
        }

        private Raw readRaw() {
            try {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    lineNumber++;
                    if (!line.isBlank()) {
                        return parse(line);
                    }
                }
                return null;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private Raw parse(String line) {
            JsonNode row;
            try {
                row = JSON.readTree(line);
            } catch (JacksonException e) {
                row = null; // not JSON at all: an Azure CSV given without --workload azure, most often
            }
            JsonNode ids = row == null ? null : row.get("hash_ids");
            if (ids == null || !ids.isArray() || row.get("timestamp") == null || row.get("input_length") == null) {
                throw new IllegalArgumentException(file + " line " + lineNumber + ": not a Mooncake trace row (a JSON "
                        + "object with timestamp, input_length and hash_ids); for an Azure CSV give --workload azure");
            }
            List<Long> blockIds = new ArrayList<>(ids.size());
            for (int i = 0; i < ids.size(); i++) {
                blockIds.add(ids.get(i).longValue());
            }
            JsonNode output = row.get("output_length");
            return new Raw(rowCount++, row.get("timestamp").longValue(), row.get("input_length").intValue(),
                    output == null ? 0 : output.intValue(), blockIds);
        }
    }
}
