package dev.homing.bench.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Multi-turn chat: conversations start by a Poisson process; each picks one of a few long system prompts (shared
 * across conversations, as applications share theirs) and sends {@code turns} user messages, each after the previous
 * answer plus an exponential think time. User messages are uniform between half and one and a half times
 * {@code userTokens}. Everything is drawn from one seed; each conversation has its own derived stream, so
 * conversation {@code i} is the same whatever the caps.
 */
public record MultiTurnChat(Shape shape) implements Workload {

    /**
     * @param systemPrompts      how many distinct system prompts the conversations share
     * @param systemPromptTokens length of each system prompt
     * @param turns              user turns per conversation
     * @param userTokens         mean length of a user message
     * @param answerTokens       answer length asked for in every turn
     * @param meanThinkSeconds   mean pause between an answer and the next turn
     * @param ratePerSecond      conversation starts per second
     * @param limits             caps on the number of conversations and on the last start
     */
    public record Shape(int systemPrompts, int systemPromptTokens, int turns, int userTokens, int answerTokens,
                        double meanThinkSeconds, double ratePerSecond, Limits limits, long seed) {

        public Shape {
            if (systemPrompts <= 0 || systemPromptTokens < 0 || turns <= 0 || userTokens <= 0 || answerTokens < 0
                    || meanThinkSeconds < 0) {
                throw new IllegalArgumentException("invalid chat shape");
            }
            // Starts only move forward at a finite rate, so a time cap alone bounds nothing when all start at once.
            boolean timeBounds = limits.maxStartMicros() != Long.MAX_VALUE && ratePerSecond > 0
                    && Double.isFinite(ratePerSecond);
            if (limits.maxConversations() == Integer.MAX_VALUE && !timeBounds) {
                throw new IllegalArgumentException("a generated workload needs a cap on conversations or on time");
            }
        }

        /** 8 system prompts of 2,000 tokens, 4 turns of about 100 tokens, 200-token answers, 5 s think time. */
        public static Shape typical(double ratePerSecond, Limits limits, long seed) {
            return new Shape(8, 2000, 4, 100, 200, 5.0, ratePerSecond, limits, seed);
        }
    }

    @Override
    public String name() {
        return "multi-turn-chat";
    }

    @Override
    public Stream<Conversation> conversations() {
        PoissonArrivals arrivals = new PoissonArrivals(shape.ratePerSecond(), SplitMix64.derive(shape.seed(), 0));
        return Stream.iterate(0, i -> i + 1)
                .map(i -> new Start(i, arrivals.next()))
                .takeWhile(start -> shape.limits().admits(start.index(), start.micros()))
                .map(start -> conversation(start.index(), start.micros()));
    }

    private record Start(int index, long micros) {
    }

    /** System prompt {@code index}, the same for every conversation that picks it. */
    public String systemPrompt(int index) {
        return PseudoText.of(SplitMix64.derive(SplitMix64.derive(shape.seed(), 1), index), shape.systemPromptTokens());
    }

    private Conversation conversation(int index, long startMicros) {
        SplitMix64 random = new SplitMix64(SplitMix64.derive(SplitMix64.derive(shape.seed(), 2), index));
        String systemPrompt = systemPrompt(random.nextInt(shape.systemPrompts()));
        List<Turn> turns = new ArrayList<>(shape.turns());
        for (int t = 0; t < shape.turns(); t++) {
            int tokens = Math.max(1, shape.userTokens() / 2 + random.nextInt(shape.userTokens() + 1));
            long think = t == 0 ? 0 : (long) (random.nextExponential(shape.meanThinkSeconds()) * 1e6);
            turns.add(new Turn(PseudoText.of(random.nextLong(), tokens), think, shape.answerTokens()));
        }
        return new Conversation("chat-" + index, startMicros, systemPrompt, turns);
    }
}
