package dev.homing.bench.workload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * MT-Bench questions ({@code question.jsonl}: {@code question_id}, {@code category}, {@code turns}) as real-text
 * conversations: one per question, one turn per question turn, with the same system prompt, starting by a Poisson
 * process and pausing an exponential think time between turns. Small (80 questions); read whole.
 */
public record MtBench(Path file, Options options) implements Workload {

    /** A short generic instruction, written for this workload. */
    public static final String DEFAULT_SYSTEM_PROMPT =
            "You are a careful assistant. Answer the user's request directly and completely.";

    public record Options(String systemPrompt, int answerTokens, double meanThinkSeconds, double ratePerSecond,
                          long seed, Limits limits) {

        public Options {
            Objects.requireNonNull(systemPrompt, "systemPrompt");
            Objects.requireNonNull(limits, "limits");
            if (answerTokens < 0 || meanThinkSeconds < 0) {
                throw new IllegalArgumentException("invalid MT-Bench options");
            }
        }

        public static Options defaults(double ratePerSecond, long seed) {
            return new Options(DEFAULT_SYSTEM_PROMPT, 256, 5.0, ratePerSecond, seed, Limits.NONE);
        }
    }

    private record Question(String id, List<String> turns) {
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();

    public MtBench {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "mt-bench";
    }

    @Override
    public Stream<Conversation> conversations() {
        List<Question> questions = read();
        PoissonArrivals arrivals = new PoissonArrivals(options.ratePerSecond(), SplitMix64.derive(options.seed(), 0));
        List<Conversation> conversations = new ArrayList<>(questions.size());
        for (int i = 0; i < questions.size(); i++) {
            long start = arrivals.next();
            if (!options.limits().admits(i, start)) {
                break;
            }
            conversations.add(conversation(i, questions.get(i), start));
        }
        return conversations.stream();
    }

    private Conversation conversation(int index, Question question, long startMicros) {
        SplitMix64 random = new SplitMix64(SplitMix64.derive(SplitMix64.derive(options.seed(), 1), index));
        List<Turn> turns = new ArrayList<>(question.turns().size());
        for (int t = 0; t < question.turns().size(); t++) {
            long think = t == 0 ? 0 : (long) (random.nextExponential(options.meanThinkSeconds()) * 1e6);
            turns.add(new Turn(question.turns().get(t), think, options.answerTokens()));
        }
        return new Conversation("mtbench-" + question.id(), startMicros, options.systemPrompt(), turns);
    }

    private List<Question> read() {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Question> questions = new ArrayList<>(lines.size());
        for (int n = 0; n < lines.size(); n++) {
            if (lines.get(n).isBlank()) {
                continue;
            }
            JsonNode row = JSON.readTree(lines.get(n));
            JsonNode turns = row.get("turns");
            if (turns == null || !turns.isArray() || turns.isEmpty()) {
                throw new IllegalArgumentException(file + " line " + (n + 1) + ": no turns");
            }
            List<String> texts = new ArrayList<>(turns.size());
            for (int t = 0; t < turns.size(); t++) {
                texts.add(turns.get(t).stringValue());
            }
            JsonNode id = row.get("question_id");
            questions.add(new Question(id == null ? String.valueOf(n) : id.asString(), texts));
        }
        return questions;
    }
}
