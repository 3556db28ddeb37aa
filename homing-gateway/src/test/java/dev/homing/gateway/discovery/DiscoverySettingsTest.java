package dev.homing.gateway.discovery;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DiscoverySettingsTest {

    @Test
    void theDefaultsAreTheReferencesWhereItHasTheFlag() {
        DiscoverySettings defaults = DiscoverySettings.DEFAULTS;

        assertThat(defaults.enabled()).isFalse();
        assertThat(defaults.selector()).isEmpty();
        assertThat(defaults.namespace()).as("every namespace").isNull();
        assertThat(defaults.port()).isEqualTo(80);
        assertThat(defaults.bootstrapPortAnnotation()).isEqualTo("sglang.ai/bootstrap-port");
        assertThat(defaults.relistInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(defaults.watchSilence()).isEqualTo(Duration.ofSeconds(300));
        assertThat(defaults.drainGrace()).isEqualTo(Duration.ofSeconds(180));
    }

    @Test
    void aSelectorIsReadFromKeyValuePairs() {
        assertThat(DiscoverySettings.parseSelector(List.of("app=sglang", "tier=gpu")))
                .containsExactly(Map.entry("app", "sglang"), Map.entry("tier", "gpu"));
    }

    @Test
    void aSelectorItemThatIsNotKeyValueIsNamed() {
        for (String bad : List.of("app", "=sglang", "app=", "a=b=c")) {
            assertThatThrownBy(() -> DiscoverySettings.parseSelector(List.of("app=sglang", bad)))
                    .hasMessage("--selector: '" + bad + "' is not key=value");
        }
    }

    @Test
    void everyInvalidSettingIsNamedByItsFlag() {
        DiscoverySettings bad = new DiscoverySettings(true, Map.of(), " ", 0, "a", Duration.ZERO,
                Duration.ofSeconds(-1), Duration.ofSeconds(-1), "kubernetes.default.svc");

        assertThatThrownBy(bad::validate).hasMessageContainingAll("--service-discovery-port",
                "--service-discovery-namespace", "--service-discovery-relist-interval-secs",
                "--service-discovery-watch-silence-secs", "--service-discovery-drain-grace-secs",
                "--service-discovery-api-server");
    }
}
