package dev.homing.core.policy;

/**
 * A policy's answer: the chosen worker's index in the list it was given (or {@link #NONE}), the branch the
 * decision took (a metrics label, such as {@code hit}, {@code miss}, {@code imbalance}), and for cache-aware
 * policies how much of the routing text the tree matched.
 *
 * @param workerIndex  index into the worker list passed to {@link RoutingPolicy#select}, or {@link #NONE}
 * @param branch       the branch label, stable across releases because dashboards use it
 * @param matchedChars characters of the routing text the chosen worker is believed to hold (0 if not known)
 * @param textChars    characters of the routing text
 */
public record Decision(int workerIndex, String branch, int matchedChars, int textChars) {

    public static final int NONE = -1;

    /** Branch label shared by every policy: no worker could take the request. */
    public static final String NO_HEALTHY_WORKERS = "no_healthy_workers";

    public static Decision of(int workerIndex, String branch) {
        return new Decision(workerIndex, branch, 0, 0);
    }

    public static Decision none(String branch) {
        return new Decision(NONE, branch, 0, 0);
    }

    /** No worker could take the request. */
    public static Decision noHealthyWorkers() {
        return none(NO_HEALTHY_WORKERS);
    }

    public boolean found() {
        return workerIndex != NONE;
    }

    /** Matched share of the routing text, 0 for an empty text. */
    public double matchRatio() {
        return textChars == 0 ? 0.0 : (double) matchedChars / textChars;
    }
}
