package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.kv.ExactKvIndex.Outcome;
import dev.homing.core.kv.KvEvent.AllBlocksCleared;
import dev.homing.core.kv.KvEvent.BlockRemoved;
import dev.homing.core.kv.KvEvent.BlockStored;
import org.junit.jupiter.api.Test;

import java.util.stream.IntStream;

class ExactKvIndexTest {

    private static final int BLOCK = 16;

    private final ExactKvIndex index = new ExactKvIndex(new TokenBlocks(BLOCK), 1_000);

    /** Tokens 0, 1, 2, ... of a prompt. */
    private static int[] prompt(int length) {
        return IntStream.range(0, length).toArray();
    }

    private static int[] slice(int[] tokens, int from, int to) {
        return java.util.Arrays.copyOfRange(tokens, from, to);
    }

    private static BlockStored stored(Long parent, int blockSize, int[] tokens, long... hashes) {
        return new BlockStored(hashes, parent, tokens, blockSize, null, null, Medium.GPU, null, 0);
    }

    private static BlockRemoved removed(long... hashes) {
        return new BlockRemoved(hashes, Medium.GPU, 0);
    }

    /** Stores {@code tokens} on {@code worker} one token a block, as SGLang's default page size does. */
    private void storeTokenByToken(String worker, int[] tokens, long firstHash) {
        Long parent = null;
        for (int i = 0; i < tokens.length; i++) {
            assertThat(index.apply(worker, stored(parent, 1, new int[] {tokens[i]}, firstHash + i)))
                    .isEqualTo(Outcome.APPLIED);
            parent = firstHash + i;
        }
    }

    @Test
    void aWorkerHoldsTheWholeBlocksItsEngineStored() {
        int[] tokens = prompt(40);
        index.apply("a", stored(null, 16, slice(tokens, 0, 32), 101, 102));

        ExactMatch match = index.match(tokens, KvNamespace.DEFAULT);

        assertThat(match.tokens("a")).isEqualTo(32);
        assertThat(match.tokens("b")).isZero();
    }

    @Test
    void pagesOfOneTokenAreRegroupedIntoTheGatewaysBlocksAcrossEvents() {
        int[] tokens = prompt(40);
        storeTokenByToken("sglang", slice(tokens, 0, 35), 1_000);
        index.apply("vllm", stored(null, 16, slice(tokens, 0, 32), 7, 8));

        ExactMatch match = index.match(tokens, KvNamespace.DEFAULT);

        assertThat(match.tokens("sglang")).isEqualTo(32);
        assertThat(match.tokens("vllm")).isEqualTo(32);
    }

    @Test
    void engineBlocksLargerThanTheGatewaysCompleteSeveralOfItsBlocks() {
        int[] tokens = prompt(64);
        index.apply("a", stored(null, 32, slice(tokens, 0, 32), 1));
        index.apply("a", stored(1L, 32, slice(tokens, 32, 64), 2));

        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(64);
        assertThat(index.heldBlocks("a")).isEqualTo(4);

        index.apply("a", removed(2));

        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(32);
    }

    @Test
    void removingALeafPageTakesAwayOnlyTheBlockItCompleted() {
        int[] tokens = prompt(32);
        storeTokenByToken("a", tokens, 0);

        index.apply("a", removed(31));
        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(16);

        index.apply("a", removed(30, 29, 28));
        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(16);
    }

    @Test
    void aMatchStopsAtTheFirstBlockAWorkerLacks() {
        int[] tokens = prompt(48);
        index.apply("a", stored(null, 16, tokens, 1, 2, 3));
        index.apply("a", removed(2));

        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(16);
    }

    @Test
    void everyWorkerIsAnsweredInOneLookup() {
        int[] tokens = prompt(64);
        index.apply("one", stored(null, 16, slice(tokens, 0, 16), 1));
        index.apply("three", stored(null, 16, slice(tokens, 0, 48), 1, 2, 3));
        index.apply("four", stored(null, 16, tokens, 1, 2, 3, 4));
        int[] other = prompt(64);
        other[0] = 99;
        index.apply("elsewhere", stored(null, 16, other, 1, 2, 3, 4));

        ExactMatch match = index.match(tokens, KvNamespace.DEFAULT);

        assertThat(match.blocksByWorker()).containsOnly(
                java.util.Map.entry("one", 1), java.util.Map.entry("three", 3), java.util.Map.entry("four", 4));
    }

    @Test
    void allBlocksClearedEmptiesOnlyItsWorker() {
        int[] tokens = prompt(32);
        index.apply("a", stored(null, 16, tokens, 1, 2));
        index.apply("b", stored(null, 16, tokens, 1, 2));

        index.apply("a", new AllBlocksCleared());

        ExactMatch match = index.match(tokens, KvNamespace.DEFAULT);
        assertThat(match.tokens("a")).isZero();
        assertThat(match.tokens("b")).isEqualTo(32);
        assertThat(index.stats().engineBlocks()).isEqualTo(2);
    }

    @Test
    void blocksOfAnotherAdapterOrSaltNeverMatch() {
        int[] tokens = prompt(16);
        index.apply("lora", new BlockStored(new long[] {1}, null, tokens, 16, "adapter", null, Medium.GPU, null, 0));
        index.apply("salted", new BlockStored(new long[] {1}, null, tokens, 16, null, null, Medium.GPU, "t1", 0));

        assertThat(index.match(tokens, KvNamespace.DEFAULT).blocksByWorker()).isEmpty();
        assertThat(index.match(tokens, KvNamespace.of("adapter", null)).tokens("lora")).isEqualTo(16);
        assertThat(index.match(tokens, KvNamespace.of(null, "t1")).tokens("salted")).isEqualTo(16);
        assertThat(KvNamespace.of("a", null).root()).isNotEqualTo(KvNamespace.of(null, "a").root());
    }

    @Test
    void blocksOffTheGpuAreNotIndexed() {
        int[] tokens = prompt(16);
        Outcome outcome = index.apply("a",
                new BlockStored(new long[] {1}, null, tokens, 16, null, null, Medium.CPU_TIER1, null, 0));
        index.apply("a", stored(null, 16, tokens, 2));
        Outcome removal = index.apply("a", new BlockRemoved(new long[] {2}, Medium.CPU_TIER2, 0));

        assertThat(outcome).isEqualTo(Outcome.IGNORED);
        assertThat(removal).isEqualTo(Outcome.IGNORED);
        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(16);
        assertThat(index.stats().ignoredEvents()).isEqualTo(2);
    }

    @Test
    void aStoreAfterAnUnknownParentIsCountedAndLeftOut() {
        int[] tokens = prompt(32);

        assertThat(index.apply("a", stored(5L, 16, slice(tokens, 16, 32), 6))).isEqualTo(Outcome.ORPHAN);
        index.apply("a", removed(77));

        assertThat(index.stats().orphanStores()).isEqualTo(1);
        assertThat(index.stats().unknownRemovals()).isEqualTo(1);
        assertThat(index.stats().engineBlocks()).isZero();
    }

    @Test
    void aFullIndexRefusesStoresAndSaysSo() {
        ExactKvIndex small = new ExactKvIndex(new TokenBlocks(BLOCK), 2);
        int[] tokens = prompt(64);

        assertThat(small.apply("a", stored(null, 16, tokens, 1, 2, 3, 4))).isEqualTo(Outcome.REFUSED_FULL);

        assertThat(small.match(tokens, KvNamespace.DEFAULT).tokens("a")).isEqualTo(32);
        assertThat(small.stats().refusedBlocks()).isEqualTo(2);
        small.apply("a", removed(2));
        assertThat(small.apply("a", stored(1L, 16, slice(tokens, 16, 32), 2))).isEqualTo(Outcome.APPLIED);
    }

    @Test
    void theEstimatedBytesFollowWhatIsHeldAndReturnToZero() {
        int[] tokens = prompt(35);
        storeTokenByToken("a", tokens, 0);
        KvIndexStats held = index.stats();

        assertThat(held.engineBlocks()).isEqualTo(35);
        assertThat(held.heldBlocks()).isEqualTo(2);
        assertThat(held.distinctBlocks()).isEqualTo(2);
        assertThat(held.estimatedBytes()).isGreaterThan(35L * ExactKvIndex.ENGINE_BLOCK_BYTES);

        index.remove("a");

        assertThat(index.stats().estimatedBytes()).isZero();
        assertThat(index.stats().workers()).isZero();
    }

    @Test
    void aBlockStoredAgainReplacesItsRecord() {
        int[] tokens = prompt(16);
        index.apply("a", stored(null, 16, tokens, 1));
        index.apply("a", stored(null, 16, tokens, 1));

        assertThat(index.stats().engineBlocks()).isEqualTo(1);
        index.apply("a", removed(1));
        assertThat(index.match(tokens, KvNamespace.DEFAULT).tokens("a")).isZero();
    }

    @Test
    void theIndexHashesAsTokenBlocksDoes() {
        int[] tokens = prompt(50);
        storeTokenByToken("a", tokens, 0);

        long[] own = new TokenBlocks(BLOCK).hashes(tokens, KvNamespace.DEFAULT);

        assertThat(own).hasSize(3);
        assertThat(index.match(own).tokens("a")).isEqualTo(48);
    }
}
