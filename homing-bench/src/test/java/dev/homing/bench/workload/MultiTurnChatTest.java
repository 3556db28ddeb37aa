package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class MultiTurnChatTest {

    private static List<Conversation> generate(double rate, Limits limits, long seed) {
        return new MultiTurnChat(MultiTurnChat.Shape.typical(rate, limits, seed)).conversations().toList();
    }

    @Test
    void theSameSeedGivesIdenticalConversationsAndAnotherSeedDifferentOnes() {
        assertThat(generate(2.0, Limits.conversations(20), 1)).isEqualTo(generate(2.0, Limits.conversations(20), 1));
        assertThat(generate(2.0, Limits.conversations(20), 1)).isNotEqualTo(generate(2.0, Limits.conversations(20), 2));
    }

    @Test
    void conversationsShareAFewLongSystemPrompts() {
        MultiTurnChat chat = new MultiTurnChat(MultiTurnChat.Shape.typical(2.0, Limits.conversations(200), 1));
        List<String> prompts = IntStream.range(0, 8).mapToObj(chat::systemPrompt).toList();

        List<Conversation> conversations = chat.conversations().toList();

        assertThat(prompts).allSatisfy(p -> assertThat(p).hasSize(2000 * 4)).doesNotHaveDuplicates();
        assertThat(conversations).extracting(Conversation::systemPrompt).isSubsetOf(prompts);
        assertThat(conversations.stream().map(Conversation::systemPrompt).distinct()).hasSize(8);
    }

    @Test
    void turnsHaveRealisticLengthsAndThinkTimesAfterTheFirst() {
        List<Conversation> conversations = generate(2.0, Limits.conversations(50), 3);

        assertThat(conversations).allSatisfy(c -> {
            assertThat(c.turns()).hasSize(4);
            assertThat(c.turns().getFirst().thinkMicros()).isZero();
            assertThat(c.turns()).allSatisfy(t -> {
                assertThat(t.userText().length()).isBetween(50 * 4, 150 * 4);
                assertThat(t.maxOutputTokens()).isEqualTo(200);
            });
        });
        double meanThink = conversations.stream().flatMap(c -> c.turns().stream().skip(1))
                .mapToLong(Turn::thinkMicros).average().orElseThrow();
        assertThat(meanThink).isBetween(3.5e6, 6.5e6);
    }

    @Test
    void startsFollowAPoissonProcessAtTheRate() {
        List<Conversation> conversations = generate(10.0, Limits.conversations(1000), 4);

        List<Long> starts = conversations.stream().map(Conversation::startMicros).toList();
        assertThat(starts).isSorted().startsWith(0L);
        assertThat(starts.getLast()).isBetween(90_000_000L, 110_000_000L);
    }

    @Test
    void aDurationCapStopsTheStarts() {
        List<Conversation> conversations = generate(10.0, Limits.of(1_000_000, Duration.ofSeconds(10)), 4);

        assertThat(conversations.size()).isBetween(70, 130);
        assertThat(conversations.getLast().startMicros()).isLessThanOrEqualTo(10_000_000L);
    }

    @Test
    void aShapeWithoutACapIsRejected() {
        assertThatThrownBy(() -> MultiTurnChat.Shape.typical(1.0, Limits.NONE, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTimeCapDoesNotBoundConversationsThatAllStartAtOnce() {
        Limits tenSeconds = new Limits(Integer.MAX_VALUE, 10_000_000);

        assertThatThrownBy(() -> MultiTurnChat.Shape.typical(Double.POSITIVE_INFINITY, tenSeconds, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
