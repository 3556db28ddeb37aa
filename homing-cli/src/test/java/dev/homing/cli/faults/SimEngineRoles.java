package dev.homing.cli.faults;

import dev.homing.config.Scope;
import dev.homing.config.Settings;

/**
 * Whether {@code homing sim-engine} of this build has the prefill/decode roles and data-parallel ranks the
 * prefill/decode contract names ({@code --disaggregation-mode}, {@code --dp-size}): the live prefill/decode and DP
 * scenarios need them and are skipped, saying so, until the engine has them.
 */
final class SimEngineRoles {

    private SimEngineRoles() {
    }

    static boolean prefillDecode() {
        return has("disaggregation-mode") && has("disaggregation-bootstrap-port");
    }

    static boolean dataParallel() {
        return has("dp-size");
    }

    private static boolean has(String flag) {
        return Settings.in(Scope.SIM_ENGINE).stream().anyMatch(setting -> setting.name().equals(flag));
    }
}
