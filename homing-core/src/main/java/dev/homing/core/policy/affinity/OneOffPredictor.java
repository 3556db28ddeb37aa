package dev.homing.core.policy.affinity;

import dev.homing.core.policy.RoutingRequest.Reuse;

/**
 * Guesses, from what a gateway sees, whether a request that no worker holds beyond the shared prefix brings text no
 * later request will read. Its key is the request's <i>opening</i>: the text up to {@link #OPENING_CHARS} beyond
 * what every worker holds. A frequency sketch counts openings; an opening never seen before starts a conversation
 * or document the fleet has not met, and such requests are one-off more often than not (on the Mooncake trace 69%
 * of them). An opening seen before is a prefix that keeps coming back (a shared document, a system prompt the tree
 * has since forgotten): it is reusable, whatever the tree holds now. A request whose future is known (offline)
 * is taken at its word. Not thread-safe: used under the policy's tree lock.
 */
final class OneOffPredictor {

    /** How far beyond the shared prefix an opening reaches: a short common word must not make openings equal. */
    static final int OPENING_CHARS = 512;
    private static final int SKETCH_WIDTH = 1 << 16;

    private final FrequencySketch openings = new FrequencySketch(SKETCH_WIDTH);

    /** Counts {@code text}'s opening beyond {@code floor}, and says whether it looks one-off ({@code known} wins). */
    boolean oneOff(String text, int floor, Reuse known) {
        long key = openingKey(text, floor);
        boolean unseen = openings.estimate(key) == 0;
        openings.add(key);
        return known == Reuse.UNKNOWN ? unseen : known == Reuse.ONE_OFF;
    }

    /** A 64-bit hash of {@code text} up to {@link #OPENING_CHARS} beyond {@code floor}. */
    static long openingKey(String text, int floor) {
        int end = (int) Math.min(text.length(), (long) floor + OPENING_CHARS);
        long h = 0xCBF29CE484222325L;
        for (int i = 0; i < end; i++) {
            h = (h ^ text.charAt(i)) * 0x100000001B3L;
        }
        return h ^ (h >>> 29);
    }
}
