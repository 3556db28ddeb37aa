package dev.homing.bench.report;

/**
 * How far the routing's idea of a chosen worker's cache was from what its engine reported: the mean over answered
 * requests of |predicted cached tokens - reported cached tokens| / prompt tokens, by each view.
 *
 * @param view  the view the run routed on: {@code exact} or {@code tree}
 * @param exact the exact view's gap (the decision's prediction when it judged the worker exact, else the index's
 *              count for that worker)
 * @param tree  the tree's gap (its match for that worker before the decision, scaled to tokens); null for a policy
 *              that keeps no tree
 */
public record PredictionGap(String view, double exact, Double tree) {
}
