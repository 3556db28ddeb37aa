package dev.homing.gateway.workers;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.LongSupplier;

/**
 * Builds the policy instance for a new model from the policy name the gateway was started with. While the core's
 * factory cannot build {@code cache_aware} itself, the cache-aware class is looked up by name, and round_robin
 * stands in (with a warning) if it is not there.
 */
final class PolicyChoice {

    private static final Logger LOG = LoggerFactory.getLogger(PolicyChoice.class);
    private static final String CACHE_AWARE_CLASS = "dev.homing.core.policy.CacheAwarePolicy";

    private PolicyChoice() {
    }

    static RoutingPolicy create(String name, PolicyConfig config) {
        LongSupplier clock = System::nanoTime;
        try {
            return PolicyFactory.create(name, config, clock);
        } catch (UnsupportedOperationException notWired) {
            try {
                return (RoutingPolicy) Class.forName(CACHE_AWARE_CLASS)
                        .getConstructor(PolicyConfig.class, LongSupplier.class).newInstance(config, clock);
            } catch (ReflectiveOperationException | LinkageError missing) {
                LOG.warn("policy {} is not available in this build; using round_robin", name);
                return PolicyFactory.create("round_robin", config, clock);
            }
        }
    }
}
