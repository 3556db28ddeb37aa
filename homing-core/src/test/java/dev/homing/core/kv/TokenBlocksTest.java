package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.IntStream;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.api.Test;

class TokenBlocksTest {

    private static final int BLOCK = 4;
    private final TokenBlocks blocks = new TokenBlocks(BLOCK);

    @Test
    void aBlockHashIsXxh3OfThePreviousHashThenItsTokens() {
        int[] tokens = IntStream.range(100, 108).toArray();
        long[] hashes = blocks.hashes(tokens, KvNamespace.DEFAULT);

        long first = LongHashFunction.xx3().hashInts(new int[] {0, 0, 100, 101, 102, 103});
        long second = LongHashFunction.xx3().hashInts(
                new int[] {(int) first, (int) (first >>> 32), 104, 105, 106, 107});
        assertThat(hashes).containsExactly(first, second);
    }

    @Test
    void onlyWholeBlocksAreNamed() {
        assertThat(blocks.hashes(new int[BLOCK * 3 - 1], KvNamespace.DEFAULT)).hasSize(2);
        assertThat(blocks.hashes(new int[BLOCK - 1], KvNamespace.DEFAULT)).isEmpty();
    }

    @Test
    void aHashStandsForItsWholePrefix() {
        int[] tokens = IntStream.range(0, BLOCK * 3).toArray();
        int[] otherStart = tokens.clone();
        otherStart[0] = -1;
        int[] otherEnd = tokens.clone();
        otherEnd[tokens.length - 1] = -1;

        long[] hashes = blocks.hashes(tokens, KvNamespace.DEFAULT);
        long[] fromOtherStart = blocks.hashes(otherStart, KvNamespace.DEFAULT);
        long[] toOtherEnd = blocks.hashes(otherEnd, KvNamespace.DEFAULT);

        for (int k = 0; k < hashes.length; k++) {
            assertThat(fromOtherStart[k]).isNotEqualTo(hashes[k]);
        }
        assertThat(Arrays.copyOf(toOtherEnd, 2)).containsExactly(hashes[0], hashes[1]);
        assertThat(toOtherEnd[2]).isNotEqualTo(hashes[2]);
    }

    @Test
    void aChainFedRunsOfAnyLengthNamesTheBlocksAsTheTokensAtOnce() {
        int[] tokens = IntStream.range(0, BLOCK * 9 + 3).toArray();
        KvNamespace salted = KvNamespace.of(null, "t");
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        for (int trial = 0; trial < 20; trial++) {
            TokenBlocks.Chain chain = blocks.chain(salted);
            java.util.List<Long> named = new java.util.ArrayList<>();
            for (int start = 0; start < tokens.length; ) {
                int end = Math.min(tokens.length, start + random.nextInt(BLOCK * 3));
                for (long hash : chain.add(Arrays.copyOfRange(tokens, start, end))) {
                    named.add(hash);
                }
                start = end;
            }
            assertThat(named).containsExactlyElementsOf(
                    Arrays.stream(blocks.hashes(tokens, salted)).boxed().toList());
            assertThat(chain.tokens()).isEqualTo(tokens.length);
        }
    }

    @Test
    void namespacesNeverShareABlock() {
        int[] tokens = IntStream.range(0, BLOCK).toArray();
        long base = blocks.hashes(tokens, KvNamespace.DEFAULT)[0];
        long adapter = blocks.hashes(tokens, KvNamespace.of("adapter", null))[0];
        long salted = blocks.hashes(tokens, KvNamespace.of(null, "adapter"))[0];

        assertThat(adapter).isNotEqualTo(base);
        assertThat(salted).isNotEqualTo(base).isNotEqualTo(adapter);
    }
}
