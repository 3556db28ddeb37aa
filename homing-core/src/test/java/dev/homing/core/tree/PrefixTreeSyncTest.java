package dev.homing.core.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a tree kept in step with other replicas' tells, learns and shows. */
class PrefixTreeSyncTest {

    private final PrefixTree tree = new PrefixTree(1_000_000);
    private final List<String> told = new ArrayList<>();

    private final TreeSync recorder = new TreeSync() {
        @Override
        public void beforeMatch(PrefixTree matched, String text) {
            told.add("before " + text);
        }

        @Override
        public void inserted(String text, int heldChars, String tenant) {
            told.add("inserted " + text + " " + heldChars + " " + tenant);
        }

        @Override
        public void trimmed(String text, int keptChars, String tenant) {
            told.add("trimmed " + text + " " + keptChars + " " + tenant);
        }
    };

    @Test
    void aDecisionsMatchInsertAndTrimAreToldWhatIsLearntIsNot() {
        tree.sync(recorder);
        tree.insert("hello world", "w0");
        tree.matchAndInsert("hello there", match -> "w0", tenant -> tenant);
        tree.learn("hello world and more", 15, "w1");
        tree.forgetBranchesBelow("hello there", 6, "w0");
        tree.forgetBranches("hello world", 6, "w1");

        assertThat(told).containsExactly("inserted hello world 0 w0", "before hello there",
                "inserted hello there 6 w0", "trimmed hello there 6 w0");
        assertThat(tree.match("hello world and more").matchedCharsFor("w1")).isEqualTo(11);
    }

    @Test
    void aLearntPrefixMatchesAsAnInsertedOneDoes() {
        tree.learn("0123456789", 8, "w1");

        assertThat(tree.match("01234567xyz").matchedCharsFor("w1")).isEqualTo(8);
        assertThat(tree.match("0123456789").matchedCharsFor("w1")).isEqualTo(8);
        tree.checkInvariants();
    }

    @Test
    void everyWholeBlockOfEveryPathIsVisitedOnceWithTheTenantsHoldingIt() {
        tree.insert("aaaabbbbcc", "w0");
        tree.insert("aaaabbxxxxyy", "w1");
        List<String> visited = new ArrayList<>();

        tree.visitBlocks(4, (path, block, tenants) -> visited.add(
                path.subSequence(block * 4, block * 4 + 4) + "@" + block + tenants));

        assertThat(visited).containsExactlyInAnyOrder("aaaa@0[w0, w1]", "bbbb@1[w0]", "bbxx@1[w1]", "xxyy@2[w1]");
    }
}
