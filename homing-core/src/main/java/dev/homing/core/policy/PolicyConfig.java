package dev.homing.core.policy;

import dev.homing.core.policy.affinity.AffinitySettings;

import java.util.Objects;

/**
 * The policy settings, with the reference gateway's command-line names and defaults. The gateway builds one from its
 * flags; the simulator and benchmarks from theirs.
 *
 * @param cacheThreshold           {@code --cache-threshold}: a match ratio strictly above it routes to the match
 * @param balanceAbsThreshold      {@code --balance-abs-threshold}: imbalance needs max - min load strictly above it
 * @param balanceRelThreshold      {@code --balance-rel-threshold}: ...and max strictly above min times it
 * @param maxTreeSize              {@code --max-tree-size}: characters one model's whole tree may hold
 * @param maxIdleSecs              {@code --max-idle-secs}: manual policy forgets a routing key idle this long
 * @param assignmentMode           {@code --assignment-mode}: how the manual policy places a new routing key
 * @param prefixTokenCount         {@code --prefix-token-count}: prefix_hash hashes this many tokens' worth of text
 * @param prefixHashLoadFactor     {@code --prefix-hash-load-factor}: prefix_hash leaves a worker loaded beyond this
 *                                 multiple of the mean
 * @param bucketAdjustIntervalSecs {@code --bucket-adjust-interval-secs}: bucket boundaries are recomputed this often
 * @param seed                     seed of the policy's random choices (the simulator fixes it; the gateway draws it)
 * @param affinity                 load_aware_affinity's own settings (Homing's {@code --affinity-*} flags)
 */
public record PolicyConfig(
        double cacheThreshold,
        int balanceAbsThreshold,
        double balanceRelThreshold,
        long maxTreeSize,
        long maxIdleSecs,
        AssignmentMode assignmentMode,
        int prefixTokenCount,
        double prefixHashLoadFactor,
        int bucketAdjustIntervalSecs,
        long seed,
        AffinitySettings affinity) {

    /** The reference gateway's Rust CLI defaults, and Homing's for load_aware_affinity. */
    public static final PolicyConfig DEFAULTS =
            new PolicyConfig(0.3, 64, 1.5, 67_108_864L, 14_400, AssignmentMode.RANDOM, 256, 1.25, 5, 0);

    /** The reference's settings alone, with load_aware_affinity's defaults. */
    public PolicyConfig(double cacheThreshold, int balanceAbsThreshold, double balanceRelThreshold, long maxTreeSize,
                        long maxIdleSecs, AssignmentMode assignmentMode, int prefixTokenCount,
                        double prefixHashLoadFactor, int bucketAdjustIntervalSecs, long seed) {
        this(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, maxTreeSize, maxIdleSecs, assignmentMode,
                prefixTokenCount, prefixHashLoadFactor, bucketAdjustIntervalSecs, seed, AffinitySettings.DEFAULTS);
    }

    public PolicyConfig {
        Objects.requireNonNull(affinity, "affinity");
    }

    public PolicyConfig withSeed(long newSeed) {
        return new PolicyConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, maxTreeSize, maxIdleSecs,
                assignmentMode, prefixTokenCount, prefixHashLoadFactor, bucketAdjustIntervalSecs, newSeed, affinity);
    }

    public PolicyConfig withAffinity(AffinitySettings newAffinity) {
        return new PolicyConfig(cacheThreshold, balanceAbsThreshold, balanceRelThreshold, maxTreeSize, maxIdleSecs,
                assignmentMode, prefixTokenCount, prefixHashLoadFactor, bucketAdjustIntervalSecs, seed, newAffinity);
    }

    /** How the manual policy places a routing key it has not seen. */
    public enum AssignmentMode {
        RANDOM, MIN_LOAD, MIN_GROUP;

        public static AssignmentMode parse(String flag) {
            return valueOf(flag.trim().toUpperCase(java.util.Locale.ROOT));
        }

        public String flag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
