package dev.homing.gateway.cli;

import dev.homing.config.Scope;
import dev.homing.config.Setting;
import dev.homing.config.Settings;
import dev.homing.core.policy.affinity.AffinitySettings;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.resilience.CircuitBreaker;
import dev.homing.gateway.resilience.RetryPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LaunchCommandTest {

    /** Parsing {@code args} fails with a picocli error whose message names {@code naming}. */
    private static void assertRejected(String naming, String... args) {
        assertThatThrownBy(() -> LaunchCommand.parse(args)).isInstanceOf(ParameterException.class)
                .hasMessageContaining(naming);
    }

    @Test
    void noFlagsGiveTheDefaults() {
        assertThat(LaunchCommand.parse()).isEqualTo(GatewayConfig.DEFAULTS);
    }

    @Test
    void theDefaultPolicyIsLoadAwareAffinity() {
        assertThat(LaunchCommand.parse().get(Settings.POLICY)).isEqualTo(LoadAwareAffinityPolicy.NAME);
    }

    @Test
    void aCacheThresholdWithoutAPolicyWarnsThatTheDefaultPolicyIgnoresIt() {
        List<String> warnings = LaunchCommand.parseWithWarnings("--cache-threshold", "0.5").warnings();

        assertThat(warnings).containsExactly(DefaultPolicyWarning.TEXT);
        assertThat(warnings.getFirst()).startsWith("--cache-threshold").contains("load_aware_affinity")
                .contains("--policy cache_aware");
    }

    @Test
    void aCacheThresholdAtItsDefaultValueStillWarns() {
        assertThat(LaunchCommand.parseWithWarnings("--cache-threshold=0.3").warnings()).hasSize(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void aCacheThresholdWithAnExplicitPolicyDoesNotWarn(String policy) {
        assertThat(LaunchCommand.parseWithWarnings("--cache-threshold", "0.5", "--policy", policy).warnings())
                .isEmpty();
    }

    @Test
    void noCacheThresholdDoesNotWarn() {
        assertThat(LaunchCommand.parseWithWarnings().warnings()).isEmpty();
        assertThat(LaunchCommand.parseWithWarnings("--balance-abs-threshold", "32").warnings()).isEmpty();
    }

    @Test
    void aCacheThresholdInTheConfigFileWithoutAPolicyWarnsToo(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, "cache_threshold: 0.5\n");

        assertThat(LaunchCommand.parseWithWarnings("--config", file.toString()).warnings())
                .containsExactly(DefaultPolicyWarning.TEXT);
    }

    @Test
    void aPolicyInTheConfigFileSilencesTheWarning(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, "policy: cache_aware\n");

        LaunchCommand.Resolved resolved = LaunchCommand.parseWithWarnings("--config", file.toString(),
                "--cache-threshold", "0.5");

        assertThat(resolved.warnings()).isEmpty();
        assertThat(resolved.config().get(Settings.POLICY)).isEqualTo("cache_aware");
    }

    static Stream<Setting<?>> flagsWithDefaults() {
        return Settings.in(Scope.GATEWAY).stream()
                .filter(s -> !s.defaultText().equals("none") && s.defaultValue() != null && s.fileKey());
    }

    @ParameterizedTest
    @MethodSource("flagsWithDefaults")
    void everyFlagAcceptsItsDefaultValueAndChangesNothing(Setting<?> setting) {
        String value = setting.defaultValue() instanceof List<?> list
                ? String.join(",", list.stream().map(String::valueOf).toList())
                : String.valueOf(setting.defaultValue());

        assertThat(LaunchCommand.parse(setting.flag() + "=" + value)).isEqualTo(GatewayConfig.DEFAULTS);
    }

    @Test
    void theCommandKnowsEveryReferenceFlag() {
        List<String> names = new CommandLine(new LaunchCommand()).getCommandSpec().options().stream()
                .flatMap(o -> Stream.of(o.names())).toList();

        assertThat(names).contains("--host", "--port", "--worker-urls", "--policy", "--cache-threshold",
                "--balance-abs-threshold", "--balance-rel-threshold", "--eviction-interval",
                "--eviction-interval-secs", "--max-tree-size", "--max-idle-secs", "--assignment-mode",
                "--prefix-token-count", "--prefix-hash-load-factor", "--bucket-adjust-interval-secs", "--dp-aware",
                "--enable-igw", "--pd-disaggregation", "--prefill", "--decode", "--prefill-policy", "--decode-policy",
                "--worker-startup-timeout-secs", "--worker-startup-check-interval", "--mini-lb",
                "--service-discovery", "--selector", "--service-discovery-port", "--service-discovery-namespace",
                "--prefill-selector", "--decode-selector", "--bootstrap-port-annotation", "--log-dir", "--log-level",
                "--prometheus-host", "--prometheus-port", "--prometheus-duration-buckets", "--request-id-headers",
                "--request-timeout-secs", "--shutdown-grace-period-secs", "--max-payload-size",
                "--cors-allowed-origins", "--max-concurrent-requests", "--queue-size", "--queue-timeout-secs",
                "--rate-limit-tokens-per-second", "--retry-max-retries", "--retry-initial-backoff-ms",
                "--retry-max-backoff-ms", "--retry-backoff-multiplier", "--retry-jitter-factor", "--disable-retries",
                "--cb-failure-threshold", "--cb-success-threshold", "--cb-timeout-duration-secs",
                "--cb-window-duration-secs", "--disable-circuit-breaker", "--health-failure-threshold",
                "--health-success-threshold", "--health-check-timeout-secs", "--health-check-interval-secs",
                "--health-check-endpoint", "--disable-health-check", "--model-path", "--tokenizer-path",
                "--chat-template", "--tokenizer-cache-enable-l0", "--tokenizer-cache-l0-max-entries",
                "--tokenizer-cache-enable-l1", "--tokenizer-cache-l1-max-memory", "--reasoning-parser",
                "--tool-call-parser", "--mcp-config-path", "--backend", "--runtime", "--history-backend",
                "--enable-wasm", "--postgres-db-url", "--postgres-pool-max-size", "--redis-url",
                "--redis-pool-max-size", "--redis-retention-days", "--tls-cert-path", "--tls-key-path",
                "--client-cert-path", "--client-key-path", "--ca-cert-paths", "--enable-trace",
                "--otlp-traces-endpoint", "--api-key", "--jwt-issuer", "--jwt-audience", "--jwt-jwks-uri",
                "--jwt-role-claim", "--jwt-role-mapping", "--control-plane-api-keys", "--disable-audit-logging",
                "--enable-mesh", "--mesh-server-name", "--mesh-host", "--mesh-port", "--mesh-peer-urls");
    }

    @Test
    void theQuickStartCommandLineParses() {
        GatewayConfig config = LaunchCommand.parse("--worker-urls", "http://127.0.0.1:30000",
                "http://127.0.0.1:30001", "--policy", "cache_aware");

        assertThat(config.get(Settings.WORKER_URLS))
                .containsExactly("http://127.0.0.1:30000", "http://127.0.0.1:30001");
        assertThat(config.get(Settings.POLICY)).isEqualTo("cache_aware");
    }

    @Test
    void thePythonAliasOfTheEvictionIntervalIsAccepted() {
        assertThat(LaunchCommand.parse("--eviction-interval-secs", "60").get(Settings.EVICTION_INTERVAL))
                .isEqualTo(60L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--mini-lb", "--enable-igw", "--enable-mesh", "--enable-wasm"})
    void aFlagOfAnUnbuiltFeatureIsRejectedByName(String flag) {
        assertThatThrownBy(() -> LaunchCommand.parse(flag))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining(flag).hasMessageContaining("not supported");
    }

    @Test
    void theReferencesTraceFlagsTurnTracingOnAndNameTheCollector() {
        GatewayConfig config = LaunchCommand.parse("--enable-trace", "--otlp-traces-endpoint", "collector:4318");

        assertThat(config.get(Settings.ENABLE_TRACE)).isTrue();
        assertThat(config.get(Settings.OTLP_TRACES_ENDPOINT)).isEqualTo("collector:4318");
        assertThatThrownBy(() -> LaunchCommand.parse("--enable-trace", "--otlp-traces-endpoint", "grpc://collector"))
                .hasMessageContaining("--otlp-traces-endpoint");
    }

    @Test
    void anUnbuiltFeatureWithAValueIsRejectedByName() {
        assertRejected("--history-backend", "--history-backend", "postgres");
        assertRejected("--tls-cert-path", "--tls-cert-path", "certs/gateway.pem");
    }

    @Test
    void retryAndCircuitBreakerFlagsReachTheConfig() {
        GatewayConfig config = LaunchCommand.parse("--retry-max-retries", "3", "--retry-initial-backoff-ms", "10",
                "--retry-max-backoff-ms", "100", "--retry-backoff-multiplier", "2", "--retry-jitter-factor", "0",
                "--retry-max-delivered", "0", "--cb-failure-threshold", "4", "--cb-success-threshold", "2", "--cb-timeout-duration-secs", "15");

        assertThat(config.retryPolicy()).isEqualTo(new RetryPolicy(3, 10, 2, 100, 0, 0));
        assertThat(config.circuitBreakerSettings())
                .isEqualTo(new CircuitBreaker.Settings(4, 2, 15, TimeUnit.SECONDS, false));
        assertThat(LaunchCommand.parse("--disable-retries").retryPolicy().maxAttempts()).isEqualTo(1);
        assertThat(LaunchCommand.parse("--disable-circuit-breaker").circuitBreakerSettings().disabled()).isTrue();
        assertRejected("--retry-max-retries", "--retry-max-retries", "0");
        assertRejected("--retry-max-delivered", "--retry-max-delivered", "-1");
    }

    @Test
    void anInvalidValueIsRejectedWithTheFlagsName() {
        assertRejected("--policy", "--policy", "fastest");
        assertRejected("gRPC", "--worker-urls", "grpc://10.0.0.1:1");
    }

    @Test
    void theYamlFileSetsValuesAndTheCommandLineWins(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, """
                worker_urls:
                  - http://127.0.0.1:30000
                  - http://127.0.0.1:30001
                cache-threshold: 0.5
                policy: round_robin
                disable_health_check: true
                """);

        GatewayConfig config = LaunchCommand.parse("--config", file.toString(), "--policy", "random");

        assertThat(config.get(Settings.WORKER_URLS))
                .containsExactly("http://127.0.0.1:30000", "http://127.0.0.1:30001");
        assertThat(config.get(Settings.CACHE_THRESHOLD)).isEqualTo(0.5);
        assertThat(config.get(Settings.DISABLE_HEALTH_CHECK)).isTrue();
        assertThat(config.get(Settings.POLICY)).isEqualTo("random");
    }

    @Test
    void affinityFlagsReachTheLoadAwareAffinityPolicy() {
        GatewayConfig config = LaunchCommand.parse("--policy", "load_aware_affinity", "--affinity-min-saving", "0.2",
                "--affinity-load-factor", "1.5", "--affinity-move-tolerance", "0", "--affinity-window", "512", "--affinity-pending-weight", "0.1",
                "--affinity-trim-min-chars", "128", "--affinity-trim-share", "0.1",
                "--affinity-capacity-chars-per-token", "4", "--affinity-prefill-wait-ms", "500",
                "--affinity-prompt-share-slack", "0");

        RoutingPolicy policy = PolicyFactory.create(config.get(Settings.POLICY), config.policyConfig(0),
                System::nanoTime);

        assertThat(((LoadAwareAffinityPolicy) policy).settings())
                .isEqualTo(new AffinitySettings(0.2, 1.5, 0, 512, 0.1, 128, 0.1, 4, 500).withPromptShareSlack(0));
    }

    @Test
    void affinitySettingsComeFromTheYamlFileToo(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, """
                policy: load_aware_affinity
                affinity_load_factor: 1.5
                affinity-window: 128
                """);

        GatewayConfig config = LaunchCommand.parse("--config", file.toString(), "--affinity-window", "64");

        assertThat(config.policyConfig(0).affinity())
                .isEqualTo(new AffinitySettings(0.1, 1.5, 0.5, 64, 0.0, 256, 1.0, 0, 2000));
    }

    @ParameterizedTest
    @ValueSource(strings = {"--affinity-min-saving=1.5", "--affinity-load-factor=0.9", "--affinity-move-tolerance=-1", "--affinity-window=0",
            "--affinity-pending-weight=-1", "--affinity-trim-min-chars=-1", "--affinity-trim-share=-0.5",
            "--affinity-capacity-chars-per-token=-4", "--affinity-prefill-wait-ms=-1",
            "--affinity-prompt-share-slack=-1"})
    void anAffinitySettingOutOfRangeIsRefusedNamingItsFlag(String flagAndValue) {
        String flag = flagAndValue.substring(0, flagAndValue.indexOf('='));

        assertThatThrownBy(() -> LaunchCommand.parse(flagAndValue))
                .isInstanceOf(ParameterException.class).hasMessageStartingWith(flag);
    }

    @Test
    void nestedAndDottedYamlKeysAreFlagNamesToo(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, """
                retry:
                  max-retries: 3
                  initial_backoff_ms: 10
                cb.failure-threshold: 4
                """);

        GatewayConfig config = LaunchCommand.parse("--config", file.toString());

        assertThat(config.retryPolicy()).isEqualTo(new RetryPolicy(3, 10, 1.5, 30_000, 0.2, 1));
        assertThat(config.circuitBreakerSettings().failureThreshold()).isEqualTo(4);
    }

    @Test
    void anUnknownYamlKeyIsRejected(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, "cache_treshold: 0.5\n");

        assertThatThrownBy(() -> LaunchCommand.parse("--config", file.toString()))
                .isInstanceOf(ParameterException.class).hasMessageContaining("cache_treshold");
    }

    @Test
    void anUnbuiltFeatureInTheYamlFileIsRejected(@TempDir Path dir) throws Exception {
        Path file = yaml(dir, "enable_mesh: true\n");

        assertThatThrownBy(() -> LaunchCommand.parse("--config", file.toString()))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--enable-mesh");
    }

    @Test
    void runningWithAnUnsupportedFlagExitsWithAUsageErrorAndAShortMessage() {
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new LaunchCommand()).setErr(new PrintWriter(err));

        int exit = commandLine.execute("--enable-mesh");

        assertThat(exit).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).startsWith("homing: --enable-mesh is not supported").doesNotContain("Usage:");
    }

    @Test
    void helpGroupsTheFlagsAsTheReferenceDoes() {
        StringWriter out = new StringWriter();
        new CommandLine(new LaunchCommand()).usage(new PrintWriter(out));

        assertThat(out.toString()).contains("Routing policy", "Health checks", "Metrics", "--cache-threshold");
    }

    private static Path yaml(Path dir, String text) throws IOException {
        return Files.writeString(dir.resolve("homing.yaml"), text);
    }
}
