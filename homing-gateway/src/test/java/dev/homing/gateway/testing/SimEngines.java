package dev.homing.gateway.testing;

import dev.homing.config.Config;
import dev.homing.config.EngineSettings;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.sim.http.SimEngineOptions;

/** Simulated engines for gateway tests, described as {@code homing sim-engine} flags would describe them. */
public final class SimEngines {

    private SimEngines() {
    }

    /**
     * Test defaults, to change with {@link Config#with}: a free port, the model {@code sim-model}, 200 times faster
     * than real time.
     */
    public static Config config() {
        return Config.defaults(Scope.SIM_ENGINE).with(Settings.ENGINE_PORT, 0).with(Settings.MODEL_NAME, "sim-model")
                .with(Settings.TIME_SCALE, 200.0);
    }

    public static SimEngineOptions options(Config config) {
        return EngineSettings.server(config.validated());
    }
}
