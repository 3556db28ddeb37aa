package dev.homing.core.policy;

/**
 * The tuning of {@link LoadAwareAffinityPolicy} beyond the reference's flags, each with the flag name the
 * configuration will give it. The defaults are the values measured best in the offline simulator (docs/POLICY.md).
 *
 * @param loadFactor          {@code --affinity-load-factor}: a worker whose recent prompt characters exceed this
 *                            multiple of the fleet's mean is passed over, however long its match
 * @param windowDecisions     {@code --affinity-window}: the recent load forgets with this many decisions' half-life
 *                            ... in fact a 1/e life: each decision keeps {@code 1 - 1/window} of it
 * @param charsPerRunning     {@code --affinity-chars-per-running}: the cost of one running request, in characters
 *                            of prefill it delays a new request by
 * @param trimMinChars        {@code --affinity-trim-min-chars}: a shortfall of the engine's cached tokens against the
 *                            prediction smaller than this is page rounding, not eviction
 * @param trimShare           {@code --affinity-trim-share}: ...and so is one smaller than this share of the prediction
 * @param charsPerToken       {@code --affinity-chars-per-token}: converts an engine's KV capacity into routing-text
 *                            characters until the engine's own reports give the ratio
 */
public record AffinitySettings(double loadFactor, int windowDecisions, int charsPerRunning, int trimMinChars,
        double trimShare, double charsPerToken) {

    public static final AffinitySettings DEFAULTS = new AffinitySettings(1.25, 256, 0, 256, 0.1, 4.0);

    public AffinitySettings {
        if (loadFactor < 1 || windowDecisions < 1 || charsPerRunning < 0 || trimMinChars < 0 || trimShare < 0
                || charsPerToken <= 0) {
            throw new IllegalArgumentException("affinity settings out of range: " + this);
        }
    }

    /** What a worker's recent load keeps of itself at each decision. */
    double keepPerDecision() {
        return 1.0 - 1.0 / windowDecisions;
    }
}
