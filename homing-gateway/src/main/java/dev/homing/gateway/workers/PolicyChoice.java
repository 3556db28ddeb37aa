package dev.homing.gateway.workers;

import dev.homing.core.policy.CacheAwarePolicy;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;

import java.util.function.LongSupplier;

/**
 * Builds the policy instance for a new model from the policy name the gateway was started with. The core's factory
 * builds every policy but cache_aware, which lives beside the prefix tree and is built here.
 */
final class PolicyChoice {

    private PolicyChoice() {
    }

    static RoutingPolicy create(String name, PolicyConfig config) {
        LongSupplier clock = System::nanoTime;
        if ("cache_aware".equals(name)) {
            return new CacheAwarePolicy(config, clock);
        }
        return PolicyFactory.create(name, config, clock);
    }
}
