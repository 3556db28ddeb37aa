package dev.homing.core.policy;

import dev.homing.core.policy.affinity.AffinitySettings;

import java.util.Objects;

/**
 * The policy settings, with the reference gateway's defaults ({@link #DEFAULTS}). The gateway and the offline
 * simulator build one from their settings table, whose defaults are these; benchmarks use these directly.
 *
 * @param cacheThreshold           a match ratio strictly above it routes to the match (cache_aware)
 * @param balanceAbsThreshold      imbalance needs max - min load strictly above it
 * @param balanceRelThreshold      ...and max strictly above min times it
 * @param maxTreeSize              characters one model's whole tree may hold
 * @param maxIdleSecs              the manual policy forgets a routing key idle this long
 * @param assignmentMode           how the manual policy places a new routing key
 * @param prefixTokenCount         prefix_hash hashes this many tokens' worth of text
 * @param prefixHashLoadFactor     prefix_hash leaves a worker loaded beyond this multiple of the mean
 * @param bucketAdjustIntervalSecs bucket boundaries are recomputed this often
 * @param seed                     seed of the policy's random choices (the simulator fixes it; the gateway draws it)
 * @param affinity                 load_aware_affinity's own settings
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

    /** The reference gateway's defaults (its Rust CLI's), and Homing's for load_aware_affinity. */
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

        /** The mode of its name in lower case, as {@link #flag()} gives it. */
        public static AssignmentMode parse(String flag) {
            return valueOf(flag.trim().toUpperCase(java.util.Locale.ROOT));
        }

        /** Its name in lower case: {@code min_load}. */
        public String flag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
