package dev.homing.sim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenizerTest {

    @Test
    void everyFourCharactersMakeOneToken() {
        assertThat(Tokenizer.encode("abcdefghi")).hasSize(3);
        assertThat(Tokenizer.count("")).isZero();
    }

    @Test
    void aTextExtendingAnotherByWholeTokensSharesAllItsTokens() {
        int[] first = Tokenizer.encode("The quick brown fox ");
        int[] longer = Tokenizer.encode("The quick brown fox jumps over the lazy dog");

        assertThat(Arrays.copyOf(longer, first.length)).isEqualTo(first);
    }

    @Test
    void differentAsciiChunksNeverShareAnId() {
        assertThat(Tokenizer.encode("ab")).isNotEqualTo(Tokenizer.encode("ab\0"));
        assertThat(Tokenizer.encode("abcd")).isNotEqualTo(Tokenizer.encode("abce"));
    }

    @Test
    void nonAsciiTextTokenizesStably() {
        assertThat(Tokenizer.encode("日本語のテキスト")).isEqualTo(Tokenizer.encode("日本語のテキスト")).hasSize(2);
    }

    @Test
    void eachPseudoWordIsOneTokenAndReTokenizesToTheSameId() {
        long seed = 42;
        String text = PseudoWords.text(seed, 0, 10, 10);

        int[] expected = new int[10];
        for (int i = 0; i < 10; i++) {
            expected[i] = PseudoWords.token(seed, i, 10);
        }
        assertThat(Tokenizer.encode(text)).isEqualTo(expected);
        assertThat(text).doesNotEndWith(" ");
    }

    @Test
    void aChatTurnExtendsThePreviousTurnPromptFollowedByItsAnswer() {
        List<ChatMessage> turn1 = List.of(new ChatMessage("system", "Be brief."), new ChatMessage("user", "Hi!"));
        String answer = PseudoWords.text(7, 0, 5, 5);
        List<ChatMessage> turn2 = List.of(turn1.get(0), turn1.get(1), new ChatMessage("assistant", answer),
            new ChatMessage("user", "More?"));

        int[] prompt1 = ChatTemplate.encode(turn1);
        int[] prompt2 = ChatTemplate.encode(turn2);

        int[] expectedPrefix = EngineTest.concat(prompt1, Tokenizer.encode(answer));
        assertThat(Arrays.copyOf(prompt2, expectedPrefix.length)).isEqualTo(expectedPrefix);
    }
}
