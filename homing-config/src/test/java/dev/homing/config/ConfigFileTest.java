package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigFileTest {

    @TempDir
    Path dir;

    private Map<Setting<?>, List<String>> read(String yaml) throws IOException {
        return ConfigFile.read(Files.writeString(dir.resolve("homing.yaml"), yaml), Scope.GATEWAY);
    }

    @Test
    void keysAreFlagNamesWithoutDashesInKebabOrSnakeCase() throws IOException {
        assertThat(read("cache-threshold: 0.5\nworker_urls: [http://a:1, http://b:2]\n")).containsOnly(
                Map.entry(Settings.CACHE_THRESHOLD, List.of("0.5")),
                Map.entry(Settings.WORKER_URLS, List.of("http://a:1", "http://b:2")));
    }

    @Test
    void dottedAndNestedKeysNameTheSameFlag() throws IOException {
        Map<Setting<?>, List<String>> expected = Map.of(Settings.RETRY_MAX_RETRIES, List.of("3"));

        assertThat(read("retry.max-retries: 3\n")).isEqualTo(expected);
        assertThat(read("retry:\n  max-retries: 3\n")).isEqualTo(expected);
        assertThat(read("retry:\n  max:\n    retries: 3\n")).isEqualTo(expected);
        assertThat(read("retry: {max_retries: 3}\n")).isEqualTo(expected);
    }

    @Test
    void anAliasIsAKeyToo() throws IOException {
        assertThat(read("eviction_interval_secs: 60\nruntime: vllm\n")).containsOnly(
                Map.entry(Settings.EVICTION_INTERVAL, List.of("60")), Map.entry(Settings.BACKEND, List.of("vllm")));
    }

    static Stream<Setting<?>> fileKeys() {
        return Settings.in(Scope.GATEWAY).stream().filter(Setting::fileKey);
    }

    @ParameterizedTest
    @MethodSource("fileKeys")
    void everyGatewaySettingIsAKeyInEachSpelling(Setting<?> setting) throws IOException {
        String name = setting.name();
        String nested = name.contains("-") ? name.replaceFirst("-", ":\n  ") : name;

        for (String key : List.of(name, name.replace('-', '_'), name.replace('-', '.'))) {
            assertThat(read(key + ": x\n")).as(key).containsOnlyKeys(setting);
        }
        assertThat(read(nested + ": x\n")).as(nested).containsOnlyKeys(setting);
    }

    @Test
    void unknownKeysAreRefusedNamingTheFileAndEachKey() {
        assertThatThrownBy(() -> read("cache_treshold: 0.5\nretry:\n  max_retrys: 3\nport: 1\n"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("homing.yaml")
                .hasMessageContaining("cache_treshold").hasMessageContaining("retry.max_retrys")
                .hasMessageNotContaining("port");
    }

    @Test
    void theConfigFlagAndTheHelpAreNotKeys() {
        assertThatThrownBy(() -> read("config: other.yaml\nhelp: true\n")).hasMessageContaining("config, help");
    }

    @Test
    void aSettingGivenTwiceIsRefused() {
        assertThatThrownBy(() -> read("retry-max-retries: 3\nretry:\n  max-retries: 4\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--retry-max-retries is set twice, as 'retry-max-retries' and as "
                        + "'retry.max-retries'");
    }

    @Test
    void aSingleValueSettingRefusesAList() {
        assertThatThrownBy(() -> read("port: [1, 2]\n")).hasMessageContaining("'port' takes one value, not a list");
    }

    @Test
    void anEmptyValueIsNoValue() throws IOException {
        assertThat(read("api_key:\n")).isEmpty();
        assertThat(read("\n")).isEmpty();
    }

    @Test
    void aFileThatIsNotAMappingIsRefused() {
        assertThatThrownBy(() -> read("- port\n")).hasMessageContaining("is not a YAML mapping");
        assertThatThrownBy(() -> ConfigFile.read(dir.resolve("absent.yaml"), Scope.GATEWAY))
                .hasMessageContaining("cannot read config file");
    }
}
