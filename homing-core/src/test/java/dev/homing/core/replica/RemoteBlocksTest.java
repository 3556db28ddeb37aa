package dev.homing.core.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RemoteBlocksTest {

    private static final long[] TEXT = {11, 12, 13, 14};

    @Test
    void aWorkerReachesAsManyBlocksAsItHoldsInARowHereOrInTheTree() {
        RemoteBlocks blocks = new RemoteBlocks(100);
        blocks.add("w0", 12, new long[] {13, 14}); // the first two blocks are in the tree

        Map<String, Integer> claimed = blocks.claim(TEXT, worker -> worker.equals("w0") ? 2 : 0, 2);

        assertThat(claimed).containsExactly(Map.entry("w0", 4));
        assertThat(blocks.isEmpty()).as("claimed blocks leave the index: the tree holds them now").isTrue();
    }

    @Test
    void aGapInTheChainEndsWhatAWorkerReaches() {
        RemoteBlocks blocks = new RemoteBlocks(100);
        blocks.add("w0", BlockChain.ROOT, new long[] {11});
        blocks.add("w0", 12, new long[] {13});

        assertThat(blocks.claim(TEXT, worker -> 0, 0)).containsExactly(Map.entry("w0", 1));
        assertThat(blocks.size()).isEqualTo(1);
    }

    @Test
    void aWorkerTheTreeAlreadyHoldsAsFarIsNotClaimed() {
        RemoteBlocks blocks = new RemoteBlocks(100);
        blocks.add("w0", BlockChain.ROOT, new long[] {11, 12});

        assertThat(blocks.claim(TEXT, worker -> 3, 3)).isEmpty();
        assertThat(blocks.size()).isEqualTo(2);
    }

    @Test
    void theLeastRecentlyUsedEntriesGoFirstWhenTheIndexIsFull() {
        RemoteBlocks blocks = new RemoteBlocks(2);
        blocks.add("w0", BlockChain.ROOT, new long[] {1});
        blocks.add("w1", BlockChain.ROOT, new long[] {2});
        blocks.claim(new long[] {1}, worker -> 1, 1); // a use of entry 1, claiming nothing
        blocks.add("w2", BlockChain.ROOT, new long[] {3});

        assertThat(blocks.snapshot("m")).extracting(ReplicaEvent.Held::hash).containsExactly(1L, 3L);
    }

    @Test
    void aTrimLetsGoOfEveryBranchBelowTheAnchorButTheKeptPath() {
        RemoteBlocks blocks = new RemoteBlocks(100);
        blocks.add("w0", BlockChain.ROOT, new long[] {1, 2, 3});
        blocks.add("w0", 2, new long[] {30, 31}); // another branch below block 2
        blocks.add("w0", BlockChain.ROOT, new long[] {100}); // a branch beside block 1
        blocks.add("w1", 2, new long[] {30});

        blocks.trim("w0", 2, new long[] {3});

        assertThat(blocks.snapshot("m")).extracting(h -> h.hash() + "=" + h.workers())
                .containsExactlyInAnyOrder("1=[w0]", "2=[w0]", "3=[w0]", "100=[w0]", "30=[w1]");
    }

    @Test
    void aWorkerThatLeftLeavesNothingBehind() {
        RemoteBlocks blocks = new RemoteBlocks(100);
        blocks.add("w0", BlockChain.ROOT, new long[] {1, 2});
        blocks.add(List.of("w0", "w1"), 2, 3);

        blocks.removeWorker("w0");

        assertThat(blocks.snapshot("m")).extracting(h -> h.hash() + "=" + h.workers()).containsExactly("3=[w1]");
    }
}
