package dev.homing.core.policy;

import java.util.List;
import java.util.function.LongSupplier;

/** Builds a policy by its command-line name. */
public final class PolicyFactory {

    /** Every policy name {@code --policy} accepts, in the order the help lists them. */
    public static final List<String> NAMES = List.of("cache_aware", "round_robin", "random", "power_of_two",
            "manual", "consistent_hashing", "prefix_hash", "bucket");

    private PolicyFactory() {
    }

    /**
     * @param nanoClock the source of time ({@code System::nanoTime} in the gateway, virtual time in the simulator)
     * @throws IllegalArgumentException for a name not in {@link #NAMES}, with the valid names in the message
     */
    public static RoutingPolicy create(String name, PolicyConfig config, LongSupplier nanoClock) {
        throw new IllegalArgumentException("unknown policy '" + name + "'; valid policies: " + String.join(", ", NAMES));
    }
}
