package dev.homing.core.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BlockChainTest {

    private final BlockChain chain = new BlockChain(8);

    @Test
    void textsWithTheSameOpeningShareTheHashesOfTheirCommonWholeBlocksOnly() {
        long[] a = chain.hashes("0123456789abcdefXXXXXXXX");
        long[] b = chain.hashes("0123456789abcdefYYYYYYYY");

        assertThat(a).hasSize(3);
        assertThat(a[0]).isEqualTo(b[0]);
        assertThat(a[1]).isEqualTo(b[1]);
        assertThat(a[2]).isNotEqualTo(b[2]);
    }

    @Test
    void aBlocksHashStandsForEverythingBeforeIt() {
        long[] a = chain.hashes("AAAAAAAAsameblok");
        long[] b = chain.hashes("BBBBBBBBsameblok");

        assertThat(a[1]).isNotEqualTo(b[1]);
    }

    @Test
    void onlyWholeBlocksAreNamed() {
        assertThat(chain.hashes("short")).isEmpty();
        assertThat(chain.hashes("exactly8")).hasSize(1);
        assertThat(chain.blocksIn(23)).isEqualTo(2);
    }

    @Test
    void aBuildersCharactersHashAsTheSameStringsDo() {
        for (String text : new String[] {"plain latin text", "ünïcödé and 漢字 and 🙂 too"}) {
            assertThat(BlockChain.next(7, new StringBuilder(text), 2, 8)).isEqualTo(BlockChain.next(7, text, 2, 8));
        }
    }

    @Test
    void aBlockHoldsAtLeastOneCharacter() {
        assertThatThrownBy(() -> new BlockChain(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
