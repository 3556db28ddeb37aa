package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.workload.Turn;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SequenceBoundsTest {

    private static final Turn TEXT_TURN = new Turn("text", 0, 10);

    private static int[] tokens(int from, int count) {
        return IntStream.range(from, from + count).toArray();
    }

    private static int[] concat(int[] a, int[] b) {
        return IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray();
    }

    @Test
    void theOracleFindsARepeatedPromptLessItsLastTokenAsAnEngineWould() {
        SequenceBounds bounds = new SequenceBounds(1_000, 1);

        bounds.arrived(TEXT_TURN, tokens(0, 100));
        bounds.arrived(TEXT_TURN, tokens(0, 100));

        assertThat(bounds.result().oracle().hitTokens()).isEqualTo(99);
        assertThat(bounds.result().oracle().promptTokens()).isEqualTo(200);
        assertThat(bounds.result().oracle().requests()).isEqualTo(2);
    }

    @Test
    void aPooledCacheTooSmallForTwoPromptsForgetsTheFirst() {
        SequenceBounds bounds = new SequenceBounds(150, 1);

        bounds.arrived(TEXT_TURN, tokens(0, 100));
        bounds.arrived(TEXT_TURN, tokens(1_000, 100));
        bounds.arrived(TEXT_TURN, tokens(0, 100));

        assertThat(bounds.result().pooled().hitTokens()).isZero();
        assertThat(bounds.result().oracle().hitTokens()).isEqualTo(99);
    }

    @Test
    void theNextTurnFindsTheAnswerOnlyOnceItHasBeenGiven() {
        int[] prompt = tokens(0, 100);
        int[] answer = tokens(500, 20);
        int[] nextTurn = concat(concat(prompt, answer), tokens(900, 30));
        SequenceBounds answered = new SequenceBounds(1_000, 1);
        SequenceBounds unanswered = new SequenceBounds(1_000, 1);

        answered.arrived(TEXT_TURN, prompt);
        answered.answered(prompt, answer);
        answered.arrived(TEXT_TURN, nextTurn);
        unanswered.arrived(TEXT_TURN, prompt);
        unanswered.arrived(TEXT_TURN, nextTurn);

        // The answer's last token was never computed by any engine, so the next turn finds all but that one.
        assertThat(answered.result().oracle().hitTokens()).isEqualTo(100 + 19);
        assertThat(unanswered.result().oracle().hitTokens()).isEqualTo(100);
    }

    @Test
    void traceRequestsAreCountedInTheirOwnBlocks() {
        SequenceBounds bounds = new SequenceBounds(1_000_000, 1);
        Turn first = new Turn("", 0, 10, List.of(7L, 8L));
        Turn second = new Turn("", 0, 10, List.of(7L, 9L));

        bounds.arrived(first, new int[600]);
        bounds.arrived(second, new int[700]);

        assertThat(bounds.result().oracle().hitTokens()).isEqualTo(512);
        assertThat(bounds.result().oracle().hitBlocks()).isEqualTo(1);
    }
}
