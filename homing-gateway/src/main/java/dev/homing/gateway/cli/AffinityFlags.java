package dev.homing.gateway.cli;

import dev.homing.core.policy.affinity.AffinitySettings;
import picocli.CommandLine.Option;

/**
 * The {@code load_aware_affinity} flags (Homing additions), shared by {@code homing launch} (an argument group, so
 * also YAML keys) and by {@code homing simulate} / {@code homing compare} (a mixin), so the gateway and the offline
 * simulator tune the policy under the same names. Defaults are {@link AffinitySettings#DEFAULTS}; what each value
 * was measured to do is in docs/POLICY.md.
 */
public final class AffinityFlags {

    private static final AffinitySettings DEFAULTS = AffinitySettings.DEFAULTS;

    @Option(names = "--affinity-min-saving", paramLabel = "SHARE",
            description = "load_aware_affinity: a match counts only beyond what every worker holds, by more than "
                    + "this share of the text (Homing).")
    double minSaving = DEFAULTS.minSaving();

    @Option(names = "--affinity-load-factor", paramLabel = "X",
            description = "load_aware_affinity: a worker whose recent prefill work is above X times the mean is "
                    + "passed over, within the move tolerance (Homing).")
    double loadFactor = DEFAULTS.loadFactor();

    @Option(names = "--affinity-move-tolerance", paramLabel = "SHARE",
            description = "load_aware_affinity: a worker holding a match may pass the load bound by this share of "
                    + "the match's saving before its request is moved (Homing).")
    double moveTolerance = DEFAULTS.moveTolerance();

    @Option(names = "--affinity-window", paramLabel = "DECISIONS",
            description = "load_aware_affinity: how many decisions the recent work remembers (Homing).")
    int window = DEFAULTS.windowDecisions();

    @Option(names = "--affinity-pending-weight", paramLabel = "W",
            description = "load_aware_affinity: weight of the prefill already queued on a worker against the prefill "
                    + "its cache saves (Homing).")
    double pendingWeight = DEFAULTS.pendingWeight();

    @Option(names = "--affinity-trim-min-chars", paramLabel = "CHARS",
            description = "load_aware_affinity: a cached-token shortfall up to this is rounding, not eviction "
                    + "(Homing).")
    int trimMinChars = DEFAULTS.trimMinChars();

    @Option(names = "--affinity-trim-share", paramLabel = "SHARE",
            description = "load_aware_affinity: forget a worker's branches when the engine cached less than the "
                    + "prediction by more than this share; 1 never forgets (Homing).")
    double trimShare = DEFAULTS.trimShare();

    @Option(names = "--affinity-capacity-chars-per-token", paramLabel = "CHARS",
            description = "load_aware_affinity: keep each worker's share of the tree within its engine's KV capacity "
                    + "at this many characters a token; 0 leaves it unbounded (Homing).")
    double capacityCharsPerToken = DEFAULTS.charsPerToken();

    @Option(names = "--affinity-prefill-wait-ms", paramLabel = "MS",
            description = "load_aware_affinity: a request placed for a prefix another request is still computing on "
                    + "that worker waits for its first token, at most this long; 0 sends at once (Homing).")
    long prefillWaitMillis = DEFAULTS.prefillWaitMillis();

    /**
     * The settings these flags give.
     *
     * @throws IllegalArgumentException naming each flag whose value is out of range
     */
    public AffinitySettings settings() {
        return new AffinitySettings(minSaving, loadFactor, moveTolerance, window, pendingWeight, trimMinChars, trimShare,
                capacityCharsPerToken, prefillWaitMillis);
    }
}
