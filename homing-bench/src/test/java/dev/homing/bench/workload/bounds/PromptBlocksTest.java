package dev.homing.bench.workload.bounds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PromptBlocksTest {

    @Test
    void textsSharingWholeBlocksShareTheirIdsAndDifferAfter() {
        String shared = "x".repeat(64 * 2);
        PromptBlocks a = PromptBlocks.ofText(shared + "a".repeat(70), 16);
        PromptBlocks b = PromptBlocks.ofText(shared + "b".repeat(70), 16);

        assertThat(a.ids()).hasSize(4);
        assertThat(a.ids().subList(0, 2)).isEqualTo(b.ids().subList(0, 2));
        assertThat(a.ids().get(2)).isNotEqualTo(b.ids().get(2));
    }

    @Test
    void anIdStandsForTheWholePrefixNotJustItsBlock() {
        PromptBlocks a = PromptBlocks.ofText("a".repeat(64) + "z".repeat(64), 16);
        PromptBlocks b = PromptBlocks.ofText("b".repeat(64) + "z".repeat(64), 16);

        assertThat(a.ids().get(1)).isNotEqualTo(b.ids().get(1));
    }

    @Test
    void tokensRoundUpAndTheLastBlockHoldsTheRest() {
        PromptBlocks blocks = PromptBlocks.ofText("y".repeat(64 + 9), 16);

        assertThat(blocks.tokens()).isEqualTo(19);
        assertThat(blocks.tokensOf(0)).isEqualTo(16);
        assertThat(blocks.tokensOf(1)).isEqualTo(3);
    }

    @Test
    void idsThatCannotHoldTheTokensAreRejected() {
        assertThatThrownBy(() -> new PromptBlocks(List.of(1L), 600, 512)).isInstanceOf(IllegalArgumentException.class);
    }
}
