package dev.homing.config;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.affinity.AffinitySettings;

/** The routing core's policy settings from a configuration: the gateway's and the offline simulator's alike. */
public final class PolicySettings {

    private PolicySettings() {
    }

    /** The policy settings of {@code config} (a gateway's or a simulation's), with {@code seed}. */
    public static PolicyConfig of(Config config, long seed) {
        return new PolicyConfig(config.get(Settings.CACHE_THRESHOLD), config.get(Settings.BALANCE_ABS_THRESHOLD),
                config.get(Settings.BALANCE_REL_THRESHOLD), config.get(Settings.MAX_TREE_SIZE),
                config.get(Settings.MAX_IDLE_SECS),
                PolicyConfig.AssignmentMode.parse(config.get(Settings.ASSIGNMENT_MODE)),
                config.get(Settings.PREFIX_TOKEN_COUNT), config.get(Settings.PREFIX_HASH_LOAD_FACTOR),
                config.get(Settings.BUCKET_ADJUST_INTERVAL_SECS), seed, affinity(config));
    }

    /** load_aware_affinity's own settings. */
    public static AffinitySettings affinity(Config config) {
        return new AffinitySettings(config.get(Settings.AFFINITY_MIN_SAVING), config.get(Settings.AFFINITY_LOAD_FACTOR),
                config.get(Settings.AFFINITY_MOVE_TOLERANCE), config.get(Settings.AFFINITY_WINDOW),
                config.get(Settings.AFFINITY_PENDING_WEIGHT), config.get(Settings.AFFINITY_TRIM_MIN_CHARS),
                config.get(Settings.AFFINITY_TRIM_SHARE), config.get(Settings.AFFINITY_CAPACITY_CHARS_PER_TOKEN),
                config.get(Settings.AFFINITY_PREFILL_WAIT_MS), config.get(Settings.AFFINITY_ONE_OFF_PLACEMENT),
                config.get(Settings.AFFINITY_PROMPT_SHARE_SLACK));
    }
}
