package dev.homing.sim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random operations on the radix cache, checked against a naive model: a plain list of every sequence ever stored.
 * With room for everything, a match must be exactly the longest common prefix with some stored sequence (in whole
 * pages); with little room, a match may be shorter but never longer, and locked prefixes must always match whole.
 */
class KvCacheAgainstNaiveModelTest {
    private static final int OPERATIONS = 3000;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void withRoomForEverythingMatchesAreExactlyTheLongestStoredPrefix(long seed) {
        Random random = new Random(seed);
        int pageSize = random.nextBoolean() ? 1 : 4;
        KvCache cache = new KvCache(Integer.MAX_VALUE / 2, pageSize);
        List<int[]> stored = new ArrayList<>();
        for (int i = 0; i < OPERATIONS; i++) {
            int[] sequence = randomSequence(random, stored);
            if (random.nextBoolean()) {
                KvCacheTest.store(cache, sequence);
                stored.add(sequence);
            } else {
                int expected = cache.pageFloor(longestStoredPrefix(stored, sequence));
                assertThat(cache.match(sequence, sequence.length).length()).isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14, 15})
    void underPressureMatchesNeverExceedWhatWasStoredAndLockedPrefixesSurvive(long seed) {
        Random random = new Random(seed);
        int pageSize = random.nextBoolean() ? 1 : 4;
        KvCache cache = new KvCache(600, pageSize);
        List<int[]> stored = new ArrayList<>();
        List<KvCache.Match> locks = new ArrayList<>();
        List<int[]> locked = new ArrayList<>();
        for (int i = 0; i < OPERATIONS; i++) {
            int[] sequence = randomSequence(random, stored);
            switch (random.nextInt(4)) {
                case 0 -> {
                    KvCache.Match match = cache.match(sequence, sequence.length);
                    if (locks.size() < 4) {
                        cache.lock(match.node());
                        locks.add(match);
                        locked.add(Arrays.copyOf(sequence, match.length()));
                    }
                }
                case 1 -> {
                    if (!locks.isEmpty()) {
                        int victim = random.nextInt(locks.size());
                        cache.unlock(locks.remove(victim).node());
                        locked.remove(victim);
                    }
                }
                default -> {
                    KvCache.Match cached = cache.match(sequence, sequence.length);
                    int own = sequence.length - cached.length();
                    cache.lock(cached.node());
                    if (cache.reserve(own)) {
                        KvCache.Match done = cache.commit(sequence, sequence.length, cached.node(), cached.length());
                        cache.release(own - (done.length() - cached.length()));
                        cache.unlock(done.node());
                        stored.add(sequence);
                    } else {
                        cache.unlock(cached.node());
                    }
                }
            }
            KvCache.Occupancy slots = cache.occupancy();
            assertThat(slots.cachedTokens() + slots.privateTokens()).isLessThanOrEqualTo(slots.capacity());
            assertThat(slots.privateTokens()).isZero();
            int[] probe = randomSequence(random, stored);
            assertThat(cache.match(probe, probe.length).length())
                .isLessThanOrEqualTo(longestStoredPrefix(stored, probe));
            for (int[] prefix : locked) {
                assertThat(cache.match(prefix, prefix.length).length()).isEqualTo(prefix.length);
            }
        }
        assertThat(cache.evictedTokens()).as("the cache was under pressure").isPositive();
    }

    /** A sequence that often shares a prefix with an earlier one, over a small alphabet so that edges split. */
    private static int[] randomSequence(Random random, List<int[]> stored) {
        int[] sequence = new int[1 + random.nextInt(60)];
        int shared = 0;
        if (!stored.isEmpty() && random.nextInt(4) > 0) {
            int[] base = stored.get(random.nextInt(stored.size()));
            shared = Math.min(sequence.length, random.nextInt(base.length + 1));
            System.arraycopy(base, 0, sequence, 0, shared);
        }
        for (int i = shared; i < sequence.length; i++) {
            sequence[i] = random.nextInt(3);
        }
        return sequence;
    }

    private static int longestStoredPrefix(List<int[]> stored, int[] sequence) {
        int best = 0;
        for (int[] candidate : stored) {
            int limit = Math.min(candidate.length, sequence.length);
            int mismatch = Arrays.mismatch(candidate, 0, limit, sequence, 0, limit);
            best = Math.max(best, mismatch < 0 ? limit : mismatch);
        }
        return best;
    }
}
