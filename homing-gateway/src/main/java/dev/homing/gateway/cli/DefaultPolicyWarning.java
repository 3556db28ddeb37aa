package dev.homing.gateway.cli;

import dev.homing.config.Setting;
import dev.homing.config.Settings;
import dev.homing.core.policy.reference.CacheAwarePolicy;

import java.util.Optional;
import java.util.Set;

/**
 * The start-up warning for a command line written for the reference gateway: it sets {@code --cache-threshold},
 * which only cache_aware reads, but no {@code --policy}, so it gets Homing's default policy, which ignores that flag.
 * Users switch by changing the command name, so this must not pass silently.
 */
final class DefaultPolicyWarning {

    static final String TEXT = Settings.CACHE_THRESHOLD.flag() + " is read by " + CacheAwarePolicy.NAME
            + " only; the policy is " + Settings.POLICY.defaultValue() + ", Homing's default: add "
            + Settings.POLICY.flag() + " " + CacheAwarePolicy.NAME + " (policy: " + CacheAwarePolicy.NAME
            + " in a config file) for the reference's routing";

    private DefaultPolicyWarning() {
    }

    /**
     * The warning, if any.
     *
     * @param given the settings given explicitly, on the command line or in the config file
     */
    static Optional<String> forSettings(Set<Setting<?>> given) {
        return given.contains(Settings.CACHE_THRESHOLD) && !given.contains(Settings.POLICY) ? Optional.of(TEXT)
                : Optional.empty();
    }
}
