package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.core.policy.PolicyConfig;
import dev.homing.sim.http.Faults;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.model.EngineConfig;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SettingsTableTest {

    @ParameterizedTest
    @EnumSource(Scope.class)
    void noTwoSettingsOfAScopeAnswerToTheSameFlag(Scope scope) {
        Set<String> seen = new HashSet<>();
        for (Setting<?> setting : Settings.in(scope)) {
            for (String flag : setting.flags()) {
                assertThat(seen.add(flag)).as("%s is declared twice in %s", flag, scope).isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Scope.class)
    void everyDefaultPassesItsOwnChecks(Scope scope) {
        assertThat(Config.defaults(scope).problems()).isEmpty();
    }

    @Test
    void everySettingSaysWhyItsDefaultIsWhatItIsAndWhatItDoes() {
        for (Setting<?> setting : Settings.ALL) {
            assertThat(setting.why()).as("why of %s", setting).isNotBlank();
            assertThat(setting.description()).as("help of %s", setting).isNotBlank();
            assertThat(setting.name()).as("name of %s", setting).matches("[a-z0-9]+(-[a-z0-9]+)*");
            assertThat(setting.scopes()).as("scopes of %s", setting).isNotEmpty();
        }
    }

    @Test
    void everyGatewaySettingHasACompatibilityRowAndNoOtherDoes() {
        for (Setting<?> setting : Settings.ALL) {
            assertThat(setting.compatibility() != null).as("row of %s", setting)
                    .isEqualTo(setting.appliesTo(Scope.GATEWAY));
        }
    }

    @Test
    void thePolicyDefaultsAreTheRoutingCoresOwn() {
        assertThat(PolicySettings.of(Config.defaults(Scope.GATEWAY), 0)).isEqualTo(PolicyConfig.DEFAULTS);
        assertThat(PolicySettings.of(Config.defaults(Scope.SIMULATE), 0)).isEqualTo(PolicyConfig.DEFAULTS);
    }

    @Test
    void theEngineDefaultsAreTheSimulatedEnginesOwn() {
        SimEngineOptions engine = EngineSettings.server(Config.defaults(Scope.SIM_ENGINE));

        assertThat(engine.engine()).isEqualTo(EngineConfig.DEFAULTS);
        assertThat(engine.faults()).isEqualTo(Faults.NONE);
        assertThat(engine).usingRecursiveComparison().ignoringFields("port", "bootstrapPort")
                .isEqualTo(SimEngineOptions.defaults());
        assertThat(EngineSettings.engine(Config.defaults(Scope.SIMULATE), 0)).isEqualTo(EngineConfig.DEFAULTS);
    }

    @Test
    void aSettingOfAnotherScopeIsNotInAConfiguration() {
        Config gateway = Config.defaults(Scope.GATEWAY);

        assertThatThrownBy(() -> gateway.get(Settings.KV_TOKENS))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--kv-tokens");
    }

    @Test
    void problemsNameTheirFlagsAndComeAllAtOnce() {
        Config config = Config.defaults(Scope.GATEWAY).with(Settings.PORT, 70_000)
                .with(Settings.RETRY_JITTER_FACTOR, 2.0).with(Settings.RETRY_INITIAL_BACKOFF_MS, 60_000L);

        assertThat(config.problems()).containsExactly("--port must be 0..65535, got 70000",
                "--retry-jitter-factor must be between 0 and 1, got 2.0",
                "--retry-initial-backoff-ms must not exceed --retry-max-backoff-ms, got 60000 > 30000");
    }

    @Test
    void notANumberFailsEveryNumericCheck() {
        Config config = Config.defaults(Scope.GATEWAY).with(Settings.AFFINITY_LOAD_FACTOR, Double.NaN);

        assertThat(config.problems()).containsExactly("--affinity-load-factor must be >= 1, got NaN");
    }

    @Test
    void headerNamesAreKeptInLowerCase() {
        Config config = Config.defaults(Scope.GATEWAY).with(Settings.REQUEST_ID_HEADERS, List.of("X-Id"));

        assertThat(config.get(Settings.REQUEST_ID_HEADERS)).containsExactly("x-id");
    }
}
