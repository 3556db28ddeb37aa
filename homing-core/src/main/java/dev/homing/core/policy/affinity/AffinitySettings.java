package dev.homing.core.policy.affinity;

import java.util.ArrayList;
import java.util.List;

/**
 * The tuning of {@link LoadAwareAffinityPolicy} beyond the reference's settings. The defaults are the values measured
 * best in the offline simulator; docs/POLICY.md has the measurements. The gateway and the simulator take each under
 * a name of their own (their settings table maps names to these components and checks values there first).
 *
 * @param minSaving       a match counts only where it goes further than every worker's by more than this share of
 *                        the text
 * @param loadFactor      a worker whose recent work (uncached prompt characters) exceeds this multiple of the fleet's
 *                        mean is passed over...
 * @param moveTolerance   ...unless it holds a match and exceeds the bound by less than this share of the match's
 *                        saving (moving the request costs the saving in prefill)
 * @param windowDecisions how many decisions the recent work remembers; each decision keeps {@code 1 - 1/window} of it
 * @param pendingWeight   what one character of prefill already queued on a worker weighs against one character this
 *                        request would find cached there
 * @param trimMinChars    a shortfall of the engine's cached tokens against the prediction no larger than this is
 *                        page rounding, not eviction
 * @param trimShare       ...and so is one no larger than this share of the prediction; 1 (the default) never trims,
 *                        since trimming lost hit rate in the simulator
 * @param charsPerToken   bounds each worker's share of the tree by its engine's KV capacity at this many characters
 *                        a token (the engines' own reports refine it); 0 leaves the share unbounded
 * @param prefillWaitMillis a request placed for a prefix that an earlier request is still computing on the same
 *                        worker waits at the gateway until that prefill is done (its first token), for at most this
 *                        long; 0 sends it at once
 * @param placeOneOff     a request no worker holds beyond the shared prefix and predicted to bring text no later
 *                        request reads goes to the first worker whose recent prompt characters stay within the load
 *                        bound with it, so its new text evicts other one-off text rather than reusable prefixes (off by
 *                        default: it lost hit rate on Mooncake, docs/POLICY.md)
 * @param promptShareSlack the load factor rises by this multiple of the share of an engine's KV cache that one prompt
 *                        fills (by the engines' reports of their capacity and prompts), so that where each engine
 *                        holds only a few prompts a turn stays with its conversation; 0 keeps the factor fixed
 */
public record AffinitySettings(double minSaving, double loadFactor, double moveTolerance, int windowDecisions, double pendingWeight,
        int trimMinChars, double trimShare, double charsPerToken, long prefillWaitMillis, boolean placeOneOff,
        double promptShareSlack) {

    private static final double DEFAULT_PROMPT_SHARE_SLACK = 8;

    public static final AffinitySettings DEFAULTS = new AffinitySettings(0.1, 1.25, 0.5, 256, 0.0, 256, 1.0, 0, 2000,
            false, DEFAULT_PROMPT_SHARE_SLACK);

    /** The settings with one-off placement off and the default prompt-share slack. */
    public AffinitySettings(double minSaving, double loadFactor, double moveTolerance, int windowDecisions,
                            double pendingWeight, int trimMinChars, double trimShare, double charsPerToken,
                            long prefillWaitMillis) {
        this(minSaving, loadFactor, moveTolerance, windowDecisions, pendingWeight, trimMinChars, trimShare,
                charsPerToken, prefillWaitMillis, false, DEFAULT_PROMPT_SHARE_SLACK);
    }

    /** These settings with one-off placement {@code on} or off. */
    public AffinitySettings withOneOffPlacement(boolean on) {
        return new AffinitySettings(minSaving, loadFactor, moveTolerance, windowDecisions, pendingWeight, trimMinChars,
                trimShare, charsPerToken, prefillWaitMillis, on, promptShareSlack);
    }

    /** These settings with a held request waiting at most {@code millis} (0 sends at once). */
    public AffinitySettings withPrefillWaitMillis(long millis) {
        return new AffinitySettings(minSaving, loadFactor, moveTolerance, windowDecisions, pendingWeight, trimMinChars,
                trimShare, charsPerToken, millis, placeOneOff, promptShareSlack);
    }

    /** These settings with the load factor rising by {@code slack} times a prompt's share of a cache (0: fixed). */
    public AffinitySettings withPromptShareSlack(double slack) {
        return new AffinitySettings(minSaving, loadFactor, moveTolerance, windowDecisions, pendingWeight, trimMinChars,
                trimShare, charsPerToken, prefillWaitMillis, placeOneOff, slack);
    }

    /** @throws IllegalArgumentException naming every component whose value is out of range */
    public AffinitySettings {
        List<String> problems = new ArrayList<>();
        check(problems, minSaving >= 0 && minSaving <= 1, "minSaving must be between 0 and 1, got " + minSaving);
        check(problems, loadFactor >= 1, "loadFactor must be >= 1, got " + loadFactor);
        check(problems, moveTolerance >= 0, "moveTolerance must be >= 0, got " + moveTolerance);
        check(problems, windowDecisions >= 1, "windowDecisions must be >= 1, got " + windowDecisions);
        check(problems, pendingWeight >= 0, "pendingWeight must be >= 0, got " + pendingWeight);
        check(problems, trimMinChars >= 0, "trimMinChars must be >= 0, got " + trimMinChars);
        check(problems, trimShare >= 0, "trimShare must be >= 0, got " + trimShare);
        check(problems, charsPerToken >= 0, "charsPerToken must be >= 0, got " + charsPerToken);
        check(problems, prefillWaitMillis >= 0, "prefillWaitMillis must be >= 0, got " + prefillWaitMillis);
        check(problems, promptShareSlack >= 0, "promptShareSlack must be >= 0, got " + promptShareSlack);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("\n", problems));
        }
    }

    /** NaN fails every comparison, so it is refused with the rest. */
    private static void check(List<String> problems, boolean ok, String problem) {
        if (!ok) {
            problems.add(problem);
        }
    }

    /** What a worker's recent work keeps of itself at each decision. */
    double keepPerDecision() {
        return 1.0 - 1.0 / windowDecisions;
    }

    /** Whether a request may wait for an earlier request's prefill of its prefix. */
    boolean waitsForPrefill() {
        return prefillWaitMillis > 0;
    }

    /** Whether each worker's share of the tree is bounded by its engine's capacity. */
    boolean boundsShareByCapacity() {
        return charsPerToken > 0;
    }
}
