package dev.homing.sim.kvevents;

import java.util.Locale;

/**
 * A fault of the KV event stream ({@code --kv-events-fault}), on seeded dice. A dropped batch keeps its sequence
 * number and its place in the replay buffer, as a batch lost between the socket and a subscriber would: the
 * subscriber sees a gap and can replay it. A reordered batch is sent after the one that follows it.
 *
 * @param kind        what happens to an unlucky batch
 * @param probability the share of batches it happens to, 0 to 1
 */
public record KvEventFault(Kind kind, double probability) {

    /** No fault. */
    public static final KvEventFault NONE = new KvEventFault(Kind.DROP, 0);

    public enum Kind { DROP, REORDER }

    public KvEventFault {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("a KV event fault's probability is 0 to 1, got " + probability);
        }
    }

    /**
     * Reads {@code none}, {@code drop:P} or {@code reorder:P}.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static KvEventFault parse(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        if (value.equals("none")) {
            return NONE;
        }
        int colon = value.indexOf(':');
        try {
            if (colon > 0) {
                Kind kind = Kind.valueOf(value.substring(0, colon).toUpperCase(Locale.ROOT));
                return new KvEventFault(kind, Double.parseDouble(value.substring(colon + 1)));
            }
        } catch (IllegalArgumentException e) {
            // refused below, with the same words for every mistake
        }
        throw new IllegalArgumentException("a KV event fault is none, drop:P or reorder:P with P from 0 to 1, got '"
            + text + "'");
    }

    boolean hits(java.util.random.RandomGenerator dice, Kind asked) {
        return kind == asked && probability > 0 && dice.nextDouble() < probability;
    }

    @Override
    public String toString() {
        return probability == 0 ? "none" : kind.name().toLowerCase(Locale.ROOT) + ":" + probability;
    }
}
