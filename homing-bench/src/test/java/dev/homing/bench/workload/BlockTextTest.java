package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BlockTextTest {

    @Test
    void aPromptHasFourCharactersPerInputToken() {
        assertThat(BlockText.of(List.of(0L, 1L, 2L), 1200)).hasSize(4800);
        assertThat(BlockText.of(List.of(9L), 1)).hasSize(4);
    }

    @Test
    void promptsSharingKLeadingBlocksShareExactlyTheirFirstKBlocksOfText() {
        String a = BlockText.of(List.of(0L, 1L, 2L, 3L), 2048);
        String b = BlockText.of(List.of(0L, 1L, 7L, 8L), 2048);

        int common = commonPrefix(a, b);

        assertThat(common).isGreaterThanOrEqualTo(2 * BlockText.BLOCK_CHARS).isLessThan(2 * BlockText.BLOCK_CHARS + 4);
    }

    @Test
    void promptsWithDifferentFirstBlocksDivergeWithinTheTag() {
        assertThat(commonPrefix(BlockText.of(List.of(5L), 100), BlockText.of(List.of(6L), 100))).isLessThan(4);
    }

    @Test
    void aTruncatedLastBlockIsAPrefixOfTheFullBlock() {
        String full = BlockText.of(List.of(0L, 1L), 1024);
        String truncated = BlockText.of(List.of(0L, 1L), 600);

        assertThat(full).startsWith(truncated);
    }

    @Test
    void blocksStartWithACapitalTagAndHoldLowercasePseudoTokens() {
        String text = BlockText.of(List.of(0L, 27L), 1024);

        assertThat(text).startsWith("AAA ");
        assertThat(text.substring(BlockText.BLOCK_CHARS)).startsWith("ABB ");
        assertThat(text.substring(4, 12)).matches("[a-z]{3} [a-z]{3} ");
    }

    @Test
    void blockIdsThatCannotHoldTheLengthAreRejected() {
        assertThatThrownBy(() -> BlockText.of(List.of(0L, 1L), 512)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BlockText.of(List.of(0L), 513)).isInstanceOf(IllegalArgumentException.class);
    }

    static int commonPrefix(String a, String b) {
        int n = Math.min(a.length(), b.length());
        int i = 0;
        while (i < n && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }
}
