package dev.homing.bench.workload;

import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The generated-shared-prefix benchmark shape of SGLang's serving benchmark: {@code groups} groups, each with its
 * own long system prompt, and {@code promptsPerGroup} one-turn requests per group that add a short question of their
 * own. With the defaults (64 x 16, 2048-token system prompt, 128-token question, 256 output tokens) an infinite
 * cache reuses 15 of every 16 system prompts: about 88% of prompt tokens.
 *
 * <p>Text is {@link PseudoText}, 4 characters a token. Requests are shuffled across groups (seeded) unless
 * {@code shuffle} is off, in which case they come group after group; they arrive by a Poisson process at
 * {@code ratePerSecond} (all at once when the rate is infinite).
 */
public record GeneratedSharedPrefix(Shape shape) implements Workload {

    public record Shape(int groups, int promptsPerGroup, int systemPromptTokens, int questionTokens,
                        int outputTokens, double ratePerSecond, boolean shuffle, long seed) {

        /** The serving benchmark's defaults, sent all at once. */
        public static final Shape DEFAULT =
                new Shape(64, 16, 2048, 128, 256, Double.POSITIVE_INFINITY, true, 1);

        public Shape {
            if (groups <= 0 || promptsPerGroup <= 0 || systemPromptTokens < 0 || questionTokens <= 0
                    || outputTokens < 0) {
                throw new IllegalArgumentException("invalid shape: " + groups + "x" + promptsPerGroup);
            }
        }

        public int requests() {
            return groups * promptsPerGroup;
        }
    }

    @Override
    public String name() {
        return "generated-shared-prefix";
    }

    @Override
    public Stream<Conversation> conversations() {
        int[] order = order();
        PoissonArrivals arrivals = new PoissonArrivals(shape.ratePerSecond(), SplitMix64.derive(shape.seed(), 1));
        return IntStream.of(order).mapToObj(request -> conversation(request, arrivals.next()));
    }

    /** The system prompt of a group: the shared part. */
    public String systemPrompt(int group) {
        return PseudoText.of(SplitMix64.derive(SplitMix64.derive(shape.seed(), 2), group), shape.systemPromptTokens());
    }

    private Conversation conversation(int request, long startMicros) {
        int group = request / shape.promptsPerGroup();
        String question = PseudoText.of(SplitMix64.derive(SplitMix64.derive(shape.seed(), 3), request),
                shape.questionTokens());
        return new Conversation("gsp-" + group + "-" + request % shape.promptsPerGroup(), startMicros,
                systemPrompt(group), List.of(new Turn(question, 0, shape.outputTokens())));
    }

    /** Request numbers (group-major), shuffled by Fisher-Yates when asked. */
    private int[] order() {
        int[] order = IntStream.range(0, shape.requests()).toArray();
        if (shape.shuffle()) {
            SplitMix64 random = new SplitMix64(SplitMix64.derive(shape.seed(), 0));
            for (int i = order.length - 1; i > 0; i--) {
                int j = random.nextInt(i + 1);
                int swap = order[i];
                order[i] = order[j];
                order[j] = swap;
            }
        }
        return order;
    }
}
