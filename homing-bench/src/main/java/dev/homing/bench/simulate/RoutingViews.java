package dev.homing.bench.simulate;

import java.util.Locale;

/**
 * Which view the simulated gateway's tree policies judge the workers on ({@code --routing-view}), and how the exact
 * view is modelled: every engine publishes its KV events into one {@code ExactKvIndex}, which applies each
 * {@code eventDelayNanos} of simulated time later; the gateway looks up each prompt's tokens (the engine's own, the
 * simulator knows them) and routes with the overlay. The offline event stream loses nothing and starts with the
 * engines, so every worker's view is exact throughout.
 *
 * @param mode            {@link Mode#TREE}: nothing modelled (the reports as before); {@link Mode#EXACT}: routed on
 *                        the exact view; {@link Mode#BOTH}: each policy run both ways, this run being the tree's half
 *                        (the exact view modelled beside it, for its predictions)
 * @param eventDelayNanos from an engine's change to the index applying it
 * @param blockTokens     the tokens of one of the index's blocks
 */
public record RoutingViews(Mode mode, long eventDelayNanos, int blockTokens) {

    /** The tree alone, as before the exact view existed. */
    public static final RoutingViews TREE = new RoutingViews(Mode.TREE, 5_000_000L, 16);

    public enum Mode {
        TREE, EXACT, BOTH;

        public static Mode parse(String flag) {
            return valueOf(flag.toUpperCase(Locale.ROOT));
        }
    }

    public RoutingViews {
        if (eventDelayNanos < 0 || blockTokens < 1) {
            throw new IllegalArgumentException("the event delay cannot be negative and a block holds a token");
        }
    }

    /** Whether the engines' events feed an index in this run. */
    boolean modelled() {
        return mode != Mode.TREE;
    }

    /** Whether the policies route on the exact view in this run. */
    boolean routesExact() {
        return mode == Mode.EXACT;
    }

    public RoutingViews withMode(Mode newMode) {
        return new RoutingViews(newMode, eventDelayNanos, blockTokens);
    }

    /** What a run's policy name gets: nothing for the tree alone, else the view it routed on. */
    String label() {
        return switch (mode) {
            case TREE -> "";
            case EXACT -> " (exact)";
            case BOTH -> " (tree)";
        };
    }
}
