package dev.homing.gateway.cli;

import dev.homing.core.policy.reference.CacheAwarePolicy;
import dev.homing.gateway.config.GatewayConfig;

import java.util.Optional;
import java.util.Set;

/**
 * The start-up warning for a command line written for the reference gateway: it sets {@code --cache-threshold},
 * which only cache_aware reads, but no {@code --policy}, so it gets Homing's default policy, which ignores that flag.
 * Users switch by changing the command name, so this must not pass silently.
 */
final class DefaultPolicyWarning {

    static final String TEXT = "--cache-threshold is read by " + CacheAwarePolicy.NAME + " only; the policy is "
            + GatewayConfig.DEFAULTS.policy() + ", Homing's default: add --policy " + CacheAwarePolicy.NAME
            + " (policy: " + CacheAwarePolicy.NAME + " in a config file) for the reference's routing";

    private DefaultPolicyWarning() {
    }

    /**
     * The warning, if any.
     *
     * @param given longest names of the flags given explicitly, on the command line or in the config file
     */
    static Optional<String> forFlags(Set<String> given) {
        return given.contains("--cache-threshold") && !given.contains("--policy") ? Optional.of(TEXT)
                : Optional.empty();
    }
}
