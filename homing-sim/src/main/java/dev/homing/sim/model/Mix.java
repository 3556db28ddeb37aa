package dev.homing.sim.model;

/** SplitMix64 finalisation: a stable 64-bit mix for seeds, independent of any JDK {@code hashCode}. */
final class Mix {
    private Mix() {
    }

    static long splitMix64(long x) {
        long z = x + 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** A seed for {@code tokens[0, length)}: equal prompts give equal seeds. */
    static long ofTokens(int[] tokens, int length, long salt) {
        long h = splitMix64(salt ^ length);
        for (int i = 0; i < length; i++) {
            h = splitMix64(h ^ tokens[i]);
        }
        return h;
    }
}
