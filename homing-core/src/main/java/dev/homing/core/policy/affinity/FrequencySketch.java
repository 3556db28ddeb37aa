package dev.homing.core.policy.affinity;

/**
 * How often a key was seen lately, estimated in fixed memory: a count-min sketch (four rows of small counters; the
 * estimate is the least of a key's four, so it may count high, never low) that halves every counter after a sample
 * of additions, as TinyLFU ages its sketch, so old popularity fades. Not thread-safe: the policy uses it under its
 * tree's write lock.
 */
final class FrequencySketch {

    private static final int ROWS = 4;
    private static final long[] SEEDS = {0x9E3779B97F4A7C15L, 0xC2B2AE3D27D4EB4FL, 0x165667B19E3779F9L,
            0xD6E8FEB86659FD93L};
    /** Counters saturate here: beyond a few sightings a key is plainly not one-off. */
    private static final int MAX_COUNT = 15;

    private final byte[][] counters;
    private final int mask;
    private final int sampleSize;
    private int additions;

    /** @param width counters a row, rounded up to a power of two; the sketch ages every {@code 10 * width} additions */
    FrequencySketch(int width) {
        int size = Math.max(16, Integer.highestOneBit(Math.max(1, width - 1)) << 1);
        this.counters = new byte[ROWS][size];
        this.mask = size - 1;
        this.sampleSize = 10 * size;
    }

    /** The estimated count of {@code key} (at least its true count since the last aging halved it). */
    int estimate(long key) {
        int least = MAX_COUNT;
        for (int row = 0; row < ROWS; row++) {
            least = Math.min(least, counters[row][index(key, row)]);
        }
        return least;
    }

    /** Counts one sighting of {@code key}. */
    void add(long key) {
        for (int row = 0; row < ROWS; row++) {
            int i = index(key, row);
            if (counters[row][i] < MAX_COUNT) {
                counters[row][i]++;
            }
        }
        if (++additions == sampleSize) {
            age();
        }
    }

    private void age() {
        for (byte[] row : counters) {
            for (int i = 0; i < row.length; i++) {
                row[i] = (byte) (row[i] >> 1);
            }
        }
        additions = 0;
    }

    private int index(long key, int row) {
        long h = (key ^ SEEDS[row]) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        return (int) (h & mask);
    }
}
