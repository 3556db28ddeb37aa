package dev.homing.bench.workload;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The Azure LLM inference trace format (CSV {@code TIMESTAMP,ContextTokens,GeneratedTokens}): arrival times and
 * lengths, no text and no prefix information. Arrival is the time since the first row, divided by
 * {@code rateScale}.
 *
 * <p>Shared-prefix model (ours, deliberately simple, since the trace says nothing about prefixes): there are
 * {@code prefixes} shared prefix texts of {@code prefixTokens} tokens, like the system prompts of a few
 * applications. Request {@code i} picks one uniformly (seeded) and starts with its first
 * {@code min(prefixTokens, contextTokens / 2)} tokens; the rest of its context is text of its own. So at most half of
 * any prompt is shared and an infinite cache reuses at most about half of the prompt tokens.
 */
public record AzureTrace(Path file, Options options) implements Workload {

    public record Options(double rateScale, int prefixes, int prefixTokens, long seed, Limits limits) {

        public Options {
            if (!(rateScale > 0) || !Double.isFinite(rateScale) || prefixes <= 0 || prefixTokens < 0) {
                throw new IllegalArgumentException("invalid Azure trace options");
            }
            Objects.requireNonNull(limits, "limits");
        }

        /** As recorded, 8 shared prefixes of 1,024 tokens. */
        public static Options defaults(long seed) {
            return new Options(1.0, 8, 1024, seed, Limits.NONE);
        }
    }

    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss[.SSSSSSS]");

    public AzureTrace {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "azure-" + LazyStream.baseName(file, ".csv");
    }

    @Override
    public Stream<Conversation> conversations() {
        return LazyStream.ofFile(file, Rows::new);
    }

    /** Shared prefix {@code index} of the model, {@code prefixTokens} long. */
    public String sharedPrefix(int index) {
        return PseudoText.of(SplitMix64.derive(SplitMix64.derive(options.seed(), 1), index), options.prefixTokens());
    }

    private Conversation conversation(int index, long arrivalMicros, int contextTokens, int outputTokens) {
        SplitMix64 random = new SplitMix64(SplitMix64.derive(SplitMix64.derive(options.seed(), 2), index));
        int shared = Math.min(options.prefixTokens(), contextTokens / 2);
        String prefix = sharedPrefix(random.nextInt(options.prefixes()));
        StringBuilder text = new StringBuilder(contextTokens * PseudoText.CHARS_PER_TOKEN);
        text.append(prefix, 0, shared * PseudoText.CHARS_PER_TOKEN);
        PseudoText.append(text, random, contextTokens - shared);
        return new Conversation("azure-" + index, arrivalMicros, "",
                List.of(new Turn(text.toString(), 0, outputTokens)));
    }

    private final class Rows implements Iterator<Conversation> {

        private final BufferedReader reader;
        private LocalDateTime first;
        private int index;
        private int lineNumber;
        private Conversation next;
        private boolean done;

        Rows(BufferedReader reader) {
            this.reader = reader;
        }

        @Override
        public boolean hasNext() {
            if (next == null && !done) {
                next = read();
                done = next == null;
            }
            return next != null;
        }

        @Override
        public Conversation next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Conversation c = next;
            next = null;
            return c;
        }

        private Conversation read() {
            String line;
            try {
                do {
                    line = reader.readLine();
                    lineNumber++;
                } while (line != null && (line.isBlank() || line.startsWith("TIMESTAMP")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (line == null) {
                return null;
            }
            String[] fields = line.split(",");
            if (fields.length != 3) {
                throw new IllegalArgumentException(file + " line " + lineNumber + ": expected 3 fields");
            }
            LocalDateTime time = LocalDateTime.parse(fields[0].trim(), TIMESTAMP);
            first = first == null ? time : first;
            long arrival = (long) (ChronoUnit.MICROS.between(first, time) / options.rateScale());
            if (!options.limits().admits(index, arrival)) {
                return null;
            }
            int context = Integer.parseInt(fields[1].trim());
            int generated = Integer.parseInt(fields[2].trim());
            return conversation(index++, arrival, Math.max(1, context), generated);
        }
    }
}
