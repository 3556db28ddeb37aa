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
    void theLaunchFlagsGiveTheSettings() {
        DiscoverySettings settings = DiscoverySettings.of(dev.homing.gateway.cli.LaunchCommand.parse(
                "--service-discovery", "--selector", "app=sglang", "tier=gpu", "--service-discovery-namespace", "llm",
                "--service-discovery-port", "30000", "--service-discovery-relist-interval-secs", "15").values());

        assertThat(settings.enabled()).isTrue();
        assertThat(settings.selector()).containsOnly(Map.entry("app", "sglang"), Map.entry("tier", "gpu"));
        assertThat(settings.namespace()).isEqualTo("llm");
        assertThat(settings.port()).isEqualTo(30000);
        assertThat(settings.relistInterval()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void aSelectorItemThatIsNotKeyValueIsNamed() {
        for (String bad : List.of("app", "=sglang", "app=", "a=b=c")) {
            assertThatThrownBy(() -> dev.homing.gateway.cli.LaunchCommand.parse("--selector", "app=sglang", bad))
                    .hasMessageContaining("--selector").hasMessageContaining("'" + bad + "' is not key=value");
        }
    }

    @Test
    void everyInvalidSettingIsNamedByItsFlag() {
        assertThatThrownBy(() -> dev.homing.gateway.cli.LaunchCommand.parse("--service-discovery-port", "0",
                "--service-discovery-namespace", " ", "--service-discovery-relist-interval-secs", "0",
                "--service-discovery-watch-silence-secs", "-1", "--service-discovery-drain-grace-secs", "-1",
                "--service-discovery-api-server", "kubernetes.default.svc"))
                .hasMessageContainingAll("--service-discovery-port", "--service-discovery-namespace",
                        "--service-discovery-relist-interval-secs", "--service-discovery-watch-silence-secs",
                        "--service-discovery-drain-grace-secs", "--service-discovery-api-server");
    }
}
