package dev.homing.bench.workload;

/**
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a PRNG whose
 * whole output is fixed by its 64-bit seed, on every JVM and every release. Workloads use it instead of
 * {@code java.util.Random} so that a seed names the same requests forever. Not thread-safe.
 */
public final class SplitMix64 {

    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** A seed for an independent stream, derived from a parent seed and a salt (a stream name or an index). */
    public static long derive(long seed, long salt) {
        return mix(seed + GOLDEN_GAMMA * (salt + 1));
    }

    /** A stable 64-bit hash of a string (FNV-1a over its chars, then mixed): never {@code String.hashCode}. */
    public static long hash(CharSequence text) {
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < text.length(); i++) {
            h = (h ^ text.charAt(i)) * 0x100000001B3L;
        }
        return mix(h);
    }

    public long nextLong() {
        state += GOLDEN_GAMMA;
        return mix(state);
    }

    /** Uniform in [0, 1). */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** Uniform in [0, bound), bound positive; multiply-shift, so the bias is below 2^-32. */
    public int nextInt(int bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    /** Exponentially distributed with the given mean (inverse transform). */
    public double nextExponential(double mean) {
        return -mean * Math.log1p(-nextDouble());
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
