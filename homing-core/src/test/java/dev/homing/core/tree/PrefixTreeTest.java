package dev.homing.core.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrefixTreeTest {

    private static final String GRIN = "\uD83D\uDE00"; // U+1F600
    private static final String BEAM = "\uD83D\uDE01"; // U+1F601, same high surrogate as GRIN

    private final PrefixTree tree = new PrefixTree(1_000_000);

    @Test
    void anEmptyTreeMatchesNothing() {
        PrefixMatch match = tree.match("hello");

        assertThat(match.matchedChars()).isZero();
        assertThat(match.textChars()).isEqualTo(5);
        assertThat(match.tenantsAtDeepest()).isEmpty();
    }

    @Test
    void anInsertedTextMatchesInFullForItsTenant() {
        tree.insert("hello world", "w1");

        PrefixMatch match = tree.match("hello world");

        assertThat(match.matchedChars()).isEqualTo(11);
        assertThat(match.tenantsAtDeepest()).containsExactly("w1");
        assertThat(match.matchedCharsFor("w1")).isEqualTo(11);
    }

    @Test
    void aMatchEndingInsideAnEdgeCountsTheSharedCharacters() {
        tree.insert("hello world", "w1");

        assertThat(tree.match("help").matchedChars()).isEqualTo(3);
        assertThat(tree.match("hello there").matchedChars()).isEqualTo(6);
    }

    @Test
    void eachTenantsMatchedLengthIsTheDeepestNodeHoldingIt() {
        tree.insert("system: be brief. user: hi", "w1");
        tree.insert("system: be brief. user: bye", "w2");
        tree.insert("system: be verbose", "w3");

        PrefixMatch match = tree.match("system: be brief. user: hi there");

        assertThat(match.matchedChars()).isEqualTo(26);
        assertThat(match.tenantsAtDeepest()).containsExactly("w1");
        assertThat(match.matchedCharsFor("w2")).isEqualTo(24);
        assertThat(match.matchedCharsFor("w3")).isEqualTo(11);
        assertThat(match.matchedCharsFor("unknown")).isZero();
    }

    @Test
    void tenantsSharingTheDeepestNodeAreAllReported() {
        tree.insert("shared prompt", "w1");
        tree.insert("shared prompt", "w2");

        assertThat(tree.match("shared prompt and more").tenantsAtDeepest()).containsExactlyInAnyOrder("w1", "w2");
    }

    @Test
    void insertReportsHowMuchTheTenantAlreadyHeld() {
        assertThat(tree.insert("abcdef", "w1")).isZero();
        assertThat(tree.insert("abcxyz", "w1")).isEqualTo(3);
        assertThat(tree.insert("abcxyz", "w2")).isZero();
        assertThat(tree.insert("abcxyz", "w1")).isEqualTo(6);
    }

    @Test
    void storedCharactersCountASharedNodeOnceAndEachTenantSeparately() {
        tree.insert("abcdef", "w1");
        tree.insert("abcxyz", "w2");

        TreeStats stats = tree.stats();
        assertThat(stats.storedChars()).isEqualTo(9); // abc + def + xyz
        assertThat(stats.nodeCount()).isEqualTo(3);
        assertThat(stats.tenantCount()).isEqualTo(2);
        assertThat(tree.tenantChars("w1")).isEqualTo(6);
        assertThat(tree.tenantChars("w2")).isEqualTo(6);
        tree.checkInvariants();
    }

    @Test
    void insertingAnEmptyTextRegistersTheTenantWithNothingStored() {
        tree.insert("", "w1");

        assertThat(tree.stats().tenantCount()).isEqualTo(1);
        assertThat(tree.stats().storedChars()).isZero();
        assertThat(tree.match("").matchedChars()).isZero();
    }

    @Test
    void removingATenantFreesOnlyTheNodesNoOtherTenantHolds() {
        tree.insert("abcdef", "w1");
        tree.insert("abcxyz", "w2");

        tree.removeTenant("w1");

        assertThat(tree.stats().storedChars()).isEqualTo(6);
        assertThat(tree.stats().tenantCount()).isEqualTo(1);
        assertThat(tree.match("abcdef").matchedChars()).isEqualTo(3);
        assertThat(tree.match("abcdef").tenantsAtDeepest()).containsExactly("w2");
        tree.checkInvariants();
    }

    @Test
    void removingAnUnknownTenantChangesNothing() {
        tree.insert("abc", "w1");

        tree.removeTenant("nobody");

        assertThat(tree.stats().storedChars()).isEqualTo(3);
    }

    /** A tree capped at {@code maxChars} after inserting the (text, tenant) pairs in order, then one eviction. */
    private static PrefixTree evictedAfter(int maxChars, String... textThenTenant) {
        PrefixTree small = new PrefixTree(maxChars);
        for (int i = 0; i < textThenTenant.length; i += 2) {
            small.insert(textThenTenant[i], textThenTenant[i + 1]);
        }
        small.evict();
        return small;
    }

    /** Nothing of {@code gone} is left, each of {@code kept} matches whole, and the tree is consistent. */
    private static void assertGoneAndKept(PrefixTree small, String gone, String... kept) {
        assertThat(small.match(gone).matchedChars()).isZero();
        for (String text : kept) {
            assertThat(small.match(text).matchedChars()).isEqualTo(text.length());
        }
        small.checkInvariants();
    }

    @Test
    void evictionRemovesTheLeastRecentlyInsertedTextsFirst() {
        PrefixTree small = evictedAfter(8, "aaaa", "w1", "bbbb", "w2", "cccc", "w1");

        assertGoneAndKept(small, "aaaa", "bbbb", "cccc");
        assertThat(small.stats().storedChars()).isEqualTo(8);
        assertThat(small.stats().evictedChars()).isEqualTo(4);
    }

    @Test
    void evictionFreesANodeOnlyWhenItsLastTenantGoes() {
        // 6 chars: must drop "abcd" from both w1 and w2 to get under 3
        PrefixTree small = evictedAfter(3, "abcd", "w1", "abcd", "w2", "xy", "w3");

        assertGoneAndKept(small, "abcd", "xy");
        assertThat(small.tenantChars("w1")).isZero();
    }

    @Test
    void aParentBecomesEvictableOnceItsLastChildForTheTenantIsGone() {
        PrefixTree small = evictedAfter(2, "abXX", "w1", "abYY", "w1", "zz", "w2");

        assertGoneAndKept(small, "ab", "zz");
        assertThat(small.stats().nodeCount()).isEqualTo(1);
    }

    @Test
    void anInsertFarAboveTheCapEvictsAtOnce() {
        PrefixTree small = new PrefixTree(100);
        small.insert("a".repeat(100), "w1");
        assertThat(small.stats().storedChars()).isEqualTo(100);

        small.insert("b".repeat(10), "w1"); // 110: within the margin, kept until the next evict()
        assertThat(small.stats().storedChars()).isEqualTo(110);

        small.insert("c".repeat(5), "w1"); // 115: above the margin, evicts the oldest text down to the cap
        assertThat(small.stats().storedChars()).isEqualTo(15);
        assertThat(small.match("c".repeat(5)).matchedChars()).isEqualTo(5);
        small.checkInvariants();
    }

    @Test
    void aSurrogatePairIsNeverSplitBetweenEdges() {
        tree.insert("a" + GRIN + "x", "w1");

        PrefixMatch other = tree.match("a" + BEAM);
        assertThat(other.matchedChars()).isEqualTo(1);

        tree.insert("a" + BEAM + "y", "w2");
        assertThat(tree.match("a" + GRIN + "x").matchedCharsFor("w1")).isEqualTo(4);
        assertThat(tree.match("a" + BEAM + "y").matchedCharsFor("w2")).isEqualTo(4);
        assertThat(tree.match("a" + BEAM + "y").matchedCharsFor("w1")).isEqualTo(1);
        assertThat(tree.storedTexts().get("w1")).containsExactly("a" + GRIN + "x");
        assertThat(tree.storedTexts().get("w2")).containsExactly("a" + BEAM + "y");
        tree.checkInvariants();
    }

    @Test
    void aTextEndingHalfwayThroughAPairMatchesUpToThePair() {
        tree.insert("ab" + GRIN, "w1");

        assertThat(tree.match("ab\uD83D").matchedChars()).isEqualTo(2);
        assertThat(tree.match("ab" + GRIN).matchedChars()).isEqualTo(4);
    }

    @Test
    void loneSurrogatesAreStoredAndMatchedWithoutHarm() {
        tree.insert("x\uD83D", "w1");
        tree.insert("x" + GRIN, "w2");
        tree.insert("\uDE00lone low", "w3");

        assertThat(tree.match("x\uD83D").matchedCharsFor("w1")).isEqualTo(2);
        assertThat(tree.match("x" + GRIN).matchedCharsFor("w2")).isEqualTo(3);
        assertThat(tree.match("x" + GRIN).matchedCharsFor("w1")).isEqualTo(1);
        assertThat(tree.match("\uDE00lone").matchedChars()).isEqualTo(5);
        tree.checkInvariants();
    }

    @Test
    void latin1AndWideTextMatchAcrossEachOthersEdges() {
        tree.insert("caf\u00e9 au lait", "w1");     // Latin-1 edge, non-ASCII query path
        tree.insert("price: 5\u20ac or so", "w2"); // wide edge

        assertThat(tree.match("caf\u00e9 noir").matchedChars()).isEqualTo(5);
        assertThat(tree.match("cafe").matchedChars()).isEqualTo(3);
        assertThat(tree.match("price: 5$").matchedChars()).isEqualTo(8);
        assertThat(tree.match("price: 5\u20ac or so").matchedChars()).isEqualTo(15);
        assertThat(tree.match("price: 5\u20ac \u20ac").matchedChars()).isEqualTo(10);
        tree.checkInvariants();
    }

    @Test
    void matchAndInsertShowsTheChooserTheTreeBeforeInsertingForItsChoice() {
        tree.insert("prompt one", "w1");

        String chosen = tree.matchAndInsert("prompt two", match -> {
            assertThat(match.matchedChars()).isEqualTo(7);
            return "w2";
        }, name -> name);

        assertThat(chosen).isEqualTo("w2");
        assertThat(tree.match("prompt two").tenantsAtDeepest()).containsExactly("w2");
        assertThat(tree.match("prompt ").tenantsAtDeepest()).containsExactlyInAnyOrder("w1", "w2");
    }

    @Test
    void matchAndInsertInsertsNothingWhenTheDecisionNamesNoTenant() {
        String chosen = tree.matchAndInsert("text", match -> null, name -> name);

        assertThat(chosen).isNull();
        assertThat(tree.stats().storedChars()).isZero();
    }

    @Test
    void aRemovedTenantsHandleIsReusedForTheNextNewTenant() {
        tree.insert("abc", "w1");
        tree.insert("abd", "w2");
        int handle = tree.match("abc").tenantOf("w1");

        tree.removeTenant("w1");
        tree.insert("xyz", "w3");

        PrefixMatch match = tree.match("xyz");
        assertThat(match.tenantOf("w3")).isEqualTo(handle);
        assertThat(match.tenantName(handle)).isEqualTo("w3");
        assertThat(tree.match("abc").tenantsAtDeepest()).containsExactly("w2");
        tree.checkInvariants();
    }

    @Test
    void aMatchTakenBeforeAChangeStillDescribesTheTreeItSaw() {
        tree.insert("abc", "w1");
        PrefixMatch before = tree.match("abc");

        tree.insert("abc", "w2");
        tree.removeTenant("w1");

        assertThat(before.tenantsAtDeepest()).containsExactly("w1");
        assertThat(List.of(before.matchedChars())).containsExactly(3);
    }
}
