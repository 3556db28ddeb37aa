package dev.homing.gateway.workers;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;

/** Builds the policy instance for a new model from the policy name the gateway was started with. */
final class PolicyChoice {

    private PolicyChoice() {
    }

    static RoutingPolicy create(String name, PolicyConfig config) {
        return PolicyFactory.create(name, config, System::nanoTime);
    }
}
