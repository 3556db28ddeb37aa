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
 * @param prefill      this request's prefill, for requests that may come to rely on it; null when nobody can
 * @param hold         an earlier request's prefill this one should wait for before it is sent; null to send at once
 * @param view         which view judged the chosen worker: {@link RoutingView#EXACT} when its engine's events did
 * @param predictedTokens for an exact view, the prompt tokens the chosen worker's engine is predicted to hold; else 0
 */
public record Decision(int workerIndex, String branch, int matchedChars, int textChars, PendingPrefill prefill,
                       Hold hold, RoutingView view, int predictedTokens) {

    public static final int NONE = -1;

    /**
     * Send the request when {@code awaited} is done, or after {@code maxNanos} at the latest: the prefix it was
     * placed for is still being computed on its worker by the request that brought it.
     */
    public record Hold(PendingPrefill awaited, long maxNanos) {
    }

    public Decision {
        view = view == null ? RoutingView.APPROXIMATE : view;
    }

    public Decision(int workerIndex, String branch, int matchedChars, int textChars, PendingPrefill prefill,
                    Hold hold) {
        this(workerIndex, branch, matchedChars, textChars, prefill, hold, RoutingView.APPROXIMATE, 0);
    }

    public Decision(int workerIndex, String branch, int matchedChars, int textChars) {
        this(workerIndex, branch, matchedChars, textChars, null, null);
    }

    /** This decision with its chosen worker judged on {@code judged}'s view. */
    public Decision judgedOn(RoutingView judged, int predicted) {
        return new Decision(workerIndex, branch, matchedChars, textChars, prefill, hold, judged, predicted);
    }

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

    /** Ends this request's prefill for whoever waits on it (first token, or the request is over). */
    public void prefillDone() {
        if (prefill != null) {
            prefill.finish();
        }
    }

    /** Matched share of the routing text, 0 for an empty text. */
    public double matchRatio() {
        return textChars == 0 ? 0.0 : (double) matchedChars / textChars;
    }
}
