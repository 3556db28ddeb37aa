package dev.homing.core.policy;

import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.pd.DecodeBalancePolicy;
import dev.homing.core.policy.reference.BucketPolicy;
import dev.homing.core.policy.reference.CacheAwarePolicy;
import dev.homing.core.policy.reference.ConsistentHashingPolicy;
import dev.homing.core.policy.reference.ManualPolicy;
import dev.homing.core.policy.reference.PowerOfTwoPolicy;
import dev.homing.core.policy.reference.PrefixHashPolicy;
import dev.homing.core.policy.reference.SpreadPolicy;

import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/** Builds a policy by its command-line name. */
public final class PolicyFactory {

    /** Every policy name {@code --policy} accepts, in the order the help lists them. */
    public static final List<String> NAMES = List.of("cache_aware", "round_robin", "random", "power_of_two",
            "manual", "consistent_hashing", "prefix_hash", "bucket", "load_aware_affinity");

    /**
     * Every policy the decode leg of a prefill/decode pair may use: each of {@link #NAMES}, and
     * {@code decode_balance}, the rule made for it (a decode engine has no prefix worth aiming at).
     */
    public static final List<String> DECODE_NAMES = Stream.concat(NAMES.stream(),
            Stream.of(DecodeBalancePolicy.NAME)).toList();

    private PolicyFactory() {
    }

    /**
     * @param nanoClock the source of time ({@code System::nanoTime} in the gateway, virtual time in the simulator)
     * @throws IllegalArgumentException for a name not in {@link #DECODE_NAMES}, with the valid names in the message
     */
    public static RoutingPolicy create(String name, PolicyConfig config, LongSupplier nanoClock) {
        return switch (name) {
            case CacheAwarePolicy.NAME -> new CacheAwarePolicy(config, nanoClock);
            case SpreadPolicy.ROUND_ROBIN -> SpreadPolicy.roundRobin(config);
            case SpreadPolicy.RANDOM -> SpreadPolicy.random(config);
            case PowerOfTwoPolicy.NAME -> new PowerOfTwoPolicy(config);
            case ManualPolicy.NAME -> new ManualPolicy(config, nanoClock);
            case ConsistentHashingPolicy.NAME -> new ConsistentHashingPolicy(config);
            case PrefixHashPolicy.NAME -> new PrefixHashPolicy(config);
            case BucketPolicy.NAME -> new BucketPolicy(config, nanoClock);
            case LoadAwareAffinityPolicy.NAME -> new LoadAwareAffinityPolicy(config, nanoClock);
            case DecodeBalancePolicy.NAME -> new DecodeBalancePolicy(config);
            case null, default -> throw new IllegalArgumentException(
                    "unknown policy '" + name + "'; valid policies: " + String.join(", ", NAMES));
        };
    }
}
