package dev.homing.core.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of insert, match, matchAndInsert, evict and removeTenant over a small alphabet (so prefixes
 * collide), with Latin-1, wide and astral characters, against {@link NaivePrefixModel}. Between evictions the tree
 * must agree with the model exactly; after one, the model is reset to what the tree still stores once that has been
 * checked to be a subset of what was inserted.
 */
class PrefixTreeRandomizedTest {

    /** 'a' and 'b' weigh most so texts share prefixes; two emoji share a high surrogate. */
    private static final String[] ALPHABET = {"a", "a", "a", "b", "b", "c", "\u00e9", "\u20ac", "\uD83D\uDE00",
            "\uD83D\uDE01"};
    private static final String[] TENANTS = {"w0", "w1", "w2", "w3"};
    private static final int STEPS = 400;

    static List<Long> seeds() {
        return java.util.stream.LongStream.range(1, 41).boxed().toList();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void treeAgreesWithTheNaiveModel(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long cap = new long[] {40, 120, 1_000_000}[(int) (seed % 3)];
        PrefixTree tree = new PrefixTree(cap);
        NaivePrefixModel model = new NaivePrefixModel();
        long burstLimit = cap + (long) Math.ceil(cap * PrefixTree.BURST_MARGIN);
        long evicted = 0;

        for (int step = 0; step < STEPS; step++) {
            String where = "seed " + seed + " step " + step;
            int op = random.nextInt(100);
            if (op < 40) {
                String text = randomText(random, model);
                String tenant = TENANTS[random.nextInt(TENANTS.length)];
                int heldBefore = model.matchedFor(text, tenant);
                int held = tree.insert(text, tenant);
                model.insert(text, tenant);
                if (tree.stats().evictedChars() == evicted) {
                    assertThat(held).as(where + " insert held").isEqualTo(heldBefore);
                }
                assertThat(tree.stats().storedChars()).as(where + " bounded by the burst margin")
                        .isLessThanOrEqualTo(burstLimit);
                if (text.length() <= cap) {
                    assertThat(tree.match(text).matchedCharsFor(tenant)).as(where + " newest text survives")
                            .isEqualTo(text.length());
                }
            } else if (op < 55) {
                String text = randomText(random, model);
                String tenant = TENANTS[random.nextInt(TENANTS.length)];
                String chosen = tree.matchAndInsert(text, match -> {
                    assertMatches(match, text, model, where + " matchAndInsert");
                    return tenant;
                }, t -> t);
                assertThat(chosen).isEqualTo(tenant);
                model.insert(text, tenant);
            } else if (op < 85) {
                String text = randomText(random, model);
                assertMatches(tree.match(text), text, model, where + " match");
            } else if (op < 93) {
                tree.evict();
                assertThat(tree.stats().storedChars()).as(where + " evict reaches the cap").isLessThanOrEqualTo(cap);
            } else {
                String tenant = TENANTS[random.nextInt(TENANTS.length)];
                tree.removeTenant(tenant);
                model.remove(tenant);
                assertThat(tree.match("a").tenantOf(tenant)).as(where + " removed").isEqualTo(-1);
            }

            try {
                tree.checkInvariants();
            } catch (IllegalStateException e) {
                throw new AssertionError(where + ": " + e.getMessage(), e);
            }
            if (tree.stats().evictedChars() != evicted) {
                evicted = tree.stats().evictedChars();
                resyncAfterEviction(tree, model, where);
            }
            assertCounts(tree, model, where);
        }
    }

    private static void assertMatches(PrefixMatch match, String text, NaivePrefixModel model, String where) {
        assertThat(match.textChars()).as(where + " text chars").isEqualTo(text.length());
        assertThat(match.matchedChars()).as(where + " matched chars of '" + text + "'").isEqualTo(model.matched(text));
        assertThat(match.tenantsAtDeepest()).as(where + " deepest tenants").containsExactlyInAnyOrderElementsOf(
                model.deepest(text));
        for (String tenant : TENANTS) {
            assertThat(match.matchedCharsFor(tenant)).as(where + " matched chars for " + tenant)
                    .isEqualTo(model.matchedFor(text, tenant));
        }
    }

    private static void assertCounts(PrefixTree tree, NaivePrefixModel model, String where) {
        TreeStats stats = tree.stats();
        assertThat(stats.storedChars()).as(where + " stored chars").isEqualTo(model.totalChars());
        assertThat(stats.tenantCount()).as(where + " tenants").isEqualTo(model.tenants().size());
        for (String tenant : TENANTS) {
            assertThat(tree.tenantChars(tenant)).as(where + " chars of " + tenant).isEqualTo(model.chars(tenant));
        }
    }

    /** What eviction left must be prefixes of what the same tenant inserted; then the model takes it over. */
    private static void resyncAfterEviction(PrefixTree tree, NaivePrefixModel model, String where) {
        Map<String, List<String>> stored = tree.storedTexts();
        assertThat(stored.keySet()).as(where + " tenants after eviction").isEqualTo(model.tenants());
        stored.forEach((tenant, texts) -> {
            for (String kept : texts) {
                assertThat(model.textsOf(tenant)).as(where + " '" + kept + "' was inserted by " + tenant)
                        .anyMatch(inserted -> inserted.startsWith(kept));
            }
        });
        model.replaceWith(stored);
    }

    /** Half the time a fresh text, otherwise a stored one cut and extended, so matches end everywhere. */
    private static String randomText(SplittableRandom random, NaivePrefixModel model) {
        StringBuilder text = new StringBuilder();
        List<String> tenants = List.copyOf(model.tenants());
        if (random.nextBoolean() && !tenants.isEmpty()) {
            List<String> texts = model.textsOf(tenants.get(random.nextInt(tenants.size())));
            if (!texts.isEmpty()) {
                String base = texts.get(random.nextInt(texts.size()));
                int cut = random.nextInt(base.length() + 1);
                if (cut > 0 && cut < base.length() && Character.isLowSurrogate(base.charAt(cut))) {
                    cut--;
                }
                text.append(base, 0, cut);
            }
        }
        int extra = random.nextInt(9);
        for (int i = 0; i < extra; i++) {
            text.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return text.toString();
    }
}
