package dev.homing.core.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the tree forgets when an engine reports an eviction, and when a worker's share must fit its engine. */
class PrefixTreeForgettingTest {

    private final PrefixTree tree = new PrefixTree(1_000_000);

    @Test
    void anEvictionBelowAPointForgetsTheTenantsOtherBranchesThereButNotTheTextsPath() {
        insert("w0", "shared-one", "shared-two");
        insert("w1", "shared-two");
        insert("w0", "shared-abc");

        long forgotten = tree.forgetBranchesBelow("shared-abc", 3, "w0");

        assertThat(forgotten).isEqualTo(6);
        assertThat(tree.match("shared-one").matchedCharsFor("w0")).isEqualTo(7);
        assertThat(tree.match("shared-two").matchedCharsFor("w0")).isEqualTo(7);
        assertThat(tree.match("shared-two").matchedCharsFor("w1")).isEqualTo(10);
        assertThat(tree.match("shared-abc").matchedCharsFor("w0")).isEqualTo(10);
        assertThat(tree.tenantChars("w0")).isEqualTo(10);
        tree.checkInvariants();
    }

    @Test
    void forgettingForAnUnknownTenantChangesNothing() {
        tree.insert("shared-one", "w0");

        assertThat(tree.forgetBranchesBelow("shared-one", 0, "w9")).isZero();
        assertThat(tree.stats().storedChars()).isEqualTo(10);
    }

    @Test
    void aTenantAboveItsBudgetLosesItsOldestLeavesAndNoOneElseLosesAnything() {
        insert("w0", "aaaa", "bbbb");
        insert("w1", "cccc", "dddd");

        tree.evictTenantsAbove(id -> id.equals("w0") ? 4 : Long.MAX_VALUE);

        assertThat(tree.storedTexts()).isEqualTo(Map.of(
                "w0", java.util.List.of("bbbb"),
                "w1", java.util.List.of("cccc", "dddd")));
        tree.checkInvariants();
    }

    /** Inserts {@code texts} for {@code tenant}, one after the other. */
    private void insert(String tenant, String... texts) {
        for (String text : texts) {
            tree.insert(text, tenant);
        }
    }
}
