package dev.homing.sim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KvCacheTest {

    /** One entry of 100 tokens, for the tests of locking. */
    private static final int[] ENTRY = tokens(0, 100);

    @Test
    void aLongerPromptFindsTheEarlierPromptAsItsPrefix() {
        KvCache cache = new KvCache(1000, 1);
        int[] turn1 = tokens(0, 100);
        int[] turn2 = concat(turn1, tokens(500, 50));
        store(cache, turn1);

        assertThat(cache.match(turn2, turn2.length).length()).isEqualTo(100);
    }

    @Test
    void aPromptThatDivergesMidwayFindsOnlyTheCommonPart() {
        KvCache cache = new KvCache(1000, 1);
        store(cache, tokens(0, 100));

        int[] other = concat(tokens(0, 40), tokens(900, 60));

        assertThat(cache.match(other, other.length).length()).isEqualTo(40);
    }

    @Test
    void storingAPrefixTwiceKeepsOneCopy() {
        KvCache cache = new KvCache(1000, 1);
        store(cache, tokens(0, 100));
        store(cache, tokens(0, 100));

        assertThat(cache.occupancy().cachedTokens()).isEqualTo(100);
        assertThat(cache.occupancy().privateTokens()).isZero();
    }

    @Test
    void underPressureTheLeastRecentlyUsedEntryIsEvictedFirst() {
        KvCache cache = new KvCache(300, 1);
        int[] old = tokens(0, 100);
        int[] recent = tokens(1000, 100);
        store(cache, old);
        store(cache, recent);
        cache.match(old, old.length);

        assertThat(cache.reserve(150)).isTrue();

        assertThat(cache.match(old, old.length).length()).isEqualTo(100);
        assertThat(cache.match(recent, recent.length).length()).isZero();
    }

    @Test
    void aLockedPrefixIsNeverEvicted() {
        KvCache cache = new KvCache(200, 1);
        storeAndLock(cache, ENTRY, ENTRY.length);

        assertThat(cache.reserve(150)).isFalse();
        assertThat(cache.reserve(100)).isTrue();
        assertThat(cache.match(ENTRY, ENTRY.length).length()).isEqualTo(100);
    }

    @Test
    void unlockingMakesAPrefixEvictableAgain() {
        KvCache cache = new KvCache(200, 1);
        KvCache.Match match = storeAndLock(cache, ENTRY, ENTRY.length);
        cache.unlock(match.node());

        assertThat(cache.reserve(200)).isTrue();
        assertThat(cache.occupancy().cachedTokens()).isZero();
    }

    @Test
    void lockingPartOfAnEntryPinsThatPartAndLetsTheRestGo() {
        KvCache cache = new KvCache(200, 1);
        storeAndLock(cache, ENTRY, 50);

        assertThat(cache.reserve(150)).isTrue();

        assertThat(cache.match(ENTRY, ENTRY.length).length()).isEqualTo(50);
    }

    @Test
    void flushEmptiesTheCache() {
        KvCache cache = new KvCache(1000, 1);
        int[] entry = tokens(0, 100);
        store(cache, entry);

        cache.flush();

        assertThat(cache.occupancy().cachedTokens()).isZero();
        assertThat(cache.match(entry, entry.length).length()).isZero();
    }

    @Test
    void withPagesOnlyWholePagesAreCachedAndMatched() {
        KvCache cache = new KvCache(1000, 16);
        store(cache, tokens(0, 40));

        assertThat(cache.occupancy().cachedTokens()).isEqualTo(32);
        int[] longer = tokens(0, 100);
        assertThat(cache.match(longer, longer.length).length()).isEqualTo(32);
        int[] diverging = concat(tokens(0, 20), tokens(700, 30));
        assertThat(cache.match(diverging, diverging.length).length()).isEqualTo(16);
    }

    @Test
    void reservingMoreThanThePoolCanEverHoldFails() {
        KvCache cache = new KvCache(100, 1);

        assertThat(cache.reserve(101)).isFalse();
        assertThat(cache.occupancy().privateTokens()).isZero();
    }

    /** Puts {@code tokens} in the cache the way a finished request does, and leaves them unlocked. */
    static void store(KvCache cache, int[] tokens) {
        KvCache.Match cached = cache.match(tokens, tokens.length);
        cache.lock(cached.node());
        int own = tokens.length - cached.length();
        if (!cache.reserve(own)) {
            throw new AssertionError("no room for " + own + " tokens");
        }
        KvCache.Match stored = cache.commit(tokens, tokens.length, cached.node(), cached.length());
        cache.release(own - (stored.length() - cached.length()));
        cache.unlock(stored.node());
    }

    /** Stores {@code tokens} and locks the node of their first {@code lockedLength}. */
    private static KvCache.Match storeAndLock(KvCache cache, int[] tokens, int lockedLength) {
        store(cache, tokens);
        KvCache.Match match = cache.match(tokens, lockedLength);
        cache.lock(match.node());
        return match;
    }

    static int[] tokens(int first, int count) {
        return IntStream.range(first, first + count).toArray();
    }

    static int[] concat(int[] a, int[] b) {
        return IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray();
    }
}
