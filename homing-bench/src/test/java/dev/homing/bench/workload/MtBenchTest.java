package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class MtBenchTest {

    private static final Path SAMPLE = TestFiles.resource("mtbench-sample.jsonl");

    @Test
    void eachQuestionIsATwoTurnConversationWithTheRealText() {
        List<Conversation> conversations =
                new MtBench(SAMPLE, MtBench.Options.defaults(1.0, 1)).conversations().toList();

        assertThat(conversations).hasSize(3);
        Conversation first = conversations.getFirst();
        assertThat(first.id()).isEqualTo("mtbench-1");
        assertThat(first.systemPrompt()).isEqualTo(MtBench.DEFAULT_SYSTEM_PROMPT);
        assertThat(first.turns()).extracting(Turn::userText).containsExactly(
                "Write a short note inviting a neighbour to a garden party.", "Now make the note sound more formal.");
        assertThat(first.turns().getFirst().thinkMicros()).isZero();
        assertThat(first.turns().get(1).thinkMicros()).isPositive();
    }

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnotherOne() {
        MtBench a = new MtBench(SAMPLE, MtBench.Options.defaults(1.0, 1));
        MtBench b = new MtBench(SAMPLE, MtBench.Options.defaults(1.0, 2));

        assertThat(a.conversations().toList()).isEqualTo(a.conversations().toList());
        assertThat(a.conversations().toList()).isNotEqualTo(b.conversations().toList());
    }

    @Test
    void limitsCapTheQuestions() {
        MtBench.Options options = new MtBench.Options("", 64, 1.0, 1.0, 1, Limits.conversations(2));

        assertThat(new MtBench(SAMPLE, options).conversations().toList()).hasSize(2)
                .allSatisfy(c -> assertThat(c.systemPrompt()).isEmpty());
    }
}
