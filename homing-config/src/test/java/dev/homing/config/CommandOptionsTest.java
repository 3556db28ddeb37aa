package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.sim.kvevents.KvEventFault;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

class CommandOptionsTest {

    @Command(name = "gateway", mixinStandardHelpOptions = true, modelTransformer = CommandOptions.Gateway.class)
    static final class GatewayFlags {
    }

    @Command(name = "sim-engine", modelTransformer = CommandOptions.SimEngine.class)
    static final class SimEngineFlags {
    }

    @Command(name = "simulate", modelTransformer = CommandOptions.Simulate.class)
    static final class SimulateFlags {
    }

    @TempDir
    Path dir;

    /** The gateway's command line {@code args}, resolved against its settings. */
    static CommandOptions.Resolved gateway(String... args) {
        return resolved(new GatewayFlags(), Scope.GATEWAY, args);
    }

    private static Config simulate(String... args) {
        return resolved(new SimulateFlags(), Scope.SIMULATE, args).config();
    }

    /** The command line {@code args} parsed into {@code flags} and resolved against {@code scope}'s settings. */
    private static CommandOptions.Resolved resolved(Object flags, Scope scope, String... args) {
        CommandLine commandLine = new CommandLine(flags);
        commandLine.parseArgs(args);
        return CommandOptions.resolve(commandLine, scope);
    }

    @Test
    void eachSettingOfTheScopeIsAnOptionUnderEveryOneOfItsFlags() {
        List<String> options = new ArrayList<>();
        for (OptionSpec option : new CommandLine(new GatewayFlags()).getCommandSpec().options()) {
            if (!option.usageHelp() && !option.versionHelp()) {
                options.addAll(List.of(option.names()));
            }
        }

        assertThat(options).containsExactlyInAnyOrderElementsOf(
                Settings.in(Scope.GATEWAY).stream().flatMap(s -> s.flags().stream()).toList());
    }

    @Test
    void nothingGivenIsTheDefaults() {
        CommandOptions.Resolved resolved = gateway();

        assertThat(resolved.config()).isEqualTo(Config.defaults(Scope.GATEWAY));
        assertThat(resolved.given()).isEmpty();
    }

    @Test
    void aFlagSetsItsSettingUnderEachOfItsNames() {
        assertThat(gateway("--eviction-interval", "60").config().get(Settings.EVICTION_INTERVAL)).isEqualTo(60L);
        assertThat(gateway("--eviction-interval-secs=61").config().get(Settings.EVICTION_INTERVAL)).isEqualTo(61L);
        assertThat(gateway("--runtime", "vllm").given()).containsExactly(Settings.BACKEND);
    }

    @Test
    void aListTakesRepeatedFlagsAndCommas() {
        Config config = gateway("--worker-urls", "http://a:1,http://b:2", "http://c:3", "--worker-urls",
                "http://d:4").config();

        assertThat(config.get(Settings.WORKER_URLS)).containsExactly("http://a:1", "http://b:2", "http://c:3",
                "http://d:4");
    }

    @Test
    void aSwitchTrueByDefaultIsTurnedOffByItsNegativeFlag() {
        assertThat(simulate().get(Settings.SPREAD_BUCKETS)).isTrue();
        assertThat(simulate("--no-spread-buckets").get(Settings.SPREAD_BUCKETS)).isFalse();
        assertThat(simulate("--spread-buckets").get(Settings.SPREAD_BUCKETS)).isTrue();
        assertThat(simulate("--no-routing-key").get(Settings.ROUTING_KEY)).isFalse();
    }

    private static Config simEngine(String... args) {
        return resolved(new SimEngineFlags(), Scope.SIM_ENGINE, args).config();
    }

    @Test
    void aNegativeNumberIsAValue() {
        assertThat(gateway("--prometheus-port", "-1").config().get(Settings.PROMETHEUS_PORT)).isEqualTo(-1);
    }

    @Test
    void aValueOfTheWrongTypeIsRefusedNamingItsFlag() {
        assertThatThrownBy(() -> gateway("--port", "http", "--cache-threshold", "high"))
                .isInstanceOf(ParameterException.class)
                .hasMessage("--port must be an integer, got 'http'\n--cache-threshold must be a number, got 'high'");
    }

    @Test
    void everyValueOutOfRangeIsListedAtOnce() {
        assertThatThrownBy(() -> gateway("--port", "70000", "--queue-size", "-1"))
                .hasMessage("--port must be 0..65535, got 70000\n--queue-size must be >= 0, got -1");
    }

    static Stream<Setting<?>> notYet() {
        return Settings.in(Scope.GATEWAY).stream().filter(Setting::notYet);
    }

    /** A value of {@code setting}'s type other than its default. */
    private static List<String> otherThanTheDefault(Setting<?> setting) {
        if (setting.type() == ValueType.SWITCH) {
            return List.of(setting.flag());
        }
        boolean number = setting.type() == ValueType.INTEGER || setting.type() == ValueType.LONG;
        if (!number) {
            return List.of(setting.flag(), "x");
        }
        Number value = (Number) setting.defaultValue();
        String other = value == null ? "1" : String.valueOf(value.longValue() + 1);
        return List.of(setting.flag(), other);
    }

    @ParameterizedTest
    @MethodSource("notYet")
    void aFlagOfAFeatureNotBuiltIsRefusedWithAnyValueButItsDefault(Setting<?> setting) {
        assertThatThrownBy(() -> gateway(otherThanTheDefault(setting).toArray(String[]::new)))
                .isInstanceOf(ParameterException.class)
                .hasMessageStartingWith(setting.flag() + (setting.compatibility().instead() == null
                        ? " is not supported by Homing yet (given" : " is not supported by Homing (given"));
        if (setting.defaultValue() != null && !(setting.defaultValue() instanceof List<?>)) {
            assertThat(gateway(setting.flag() + "=" + setting.defaultValue()).config()).isEqualTo(
                    Config.defaults(Scope.GATEWAY));
        }
    }

    @Test
    void aFlagOfAFeatureNotBuiltIsRefusedFromTheFileToo() throws IOException {
        Path file = Files.writeString(dir.resolve("homing.yaml"), "jwt:\n  issuer: x\nenable-mesh: false\n");

        assertThatThrownBy(() -> gateway("--config", file.toString()))
                .hasMessage("--jwt-issuer is not supported by Homing yet (set in the config file to x)");
    }

    @Test
    void theCommandLineWinsOverTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("homing.yaml"), "policy: random\ncache_threshold: 0.5\n");

        CommandOptions.Resolved resolved = gateway("--config", file.toString(), "--policy", "cache_aware");

        assertThat(resolved.config().get(Settings.POLICY)).isEqualTo("cache_aware");
        assertThat(resolved.config().get(Settings.CACHE_THRESHOLD)).isEqualTo(0.5);
        assertThat(resolved.given()).containsExactlyInAnyOrder(Settings.CONFIG, Settings.POLICY,
                Settings.CACHE_THRESHOLD);
    }

    @Test
    void aBadValueInTheFileNamesTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("homing.yaml"), "port: high\n");

        assertThatThrownBy(() -> gateway("--config", file.toString()))
                .hasMessage("--port must be an integer, got 'high' (config file " + file + ")");
    }

    @Test
    void helpShowsEachGroupAndDefault() {
        StringWriter out = new StringWriter();
        new CommandLine(new GatewayFlags()).usage(new PrintWriter(out));

        assertThat(out.toString()).contains("Routing policy", "load_aware_affinity (Homing)",
                "Replicas (HA mesh)", "--replica-sync=URL[,URL...]", "--eviction-interval, --eviction-interval-secs=<evictionInterval>",
                "Default: load_aware_affinity", "Default: 0.001 ... 240");
    }

    @Test
    void theMeshFlagsAreRefusedWithASentencePointingToReplicaSync() {
        assertThatThrownBy(() -> gateway("--enable-mesh", "--mesh-port", "4000"))
                .isInstanceOf(ParameterException.class)
                .hasMessageContaining("--enable-mesh is not supported by Homing (given); Homing's replicas keep each "
                        + "other in step through NATS instead: use --replica-sync nats://HOST:PORT")
                .hasMessageContaining("--mesh-port is not supported by Homing (given 4000)");
    }

    @Test
    void aMeshKeyInTheConfigFileIsRefusedTheSameWay() throws IOException {
        Path file = Files.writeString(dir.resolve("homing.yaml"), "mesh:\n  port: 1\n");

        assertThatThrownBy(() -> gateway("--config", file.toString())).hasMessage("--mesh-port is not supported by "
                + "Homing (set in the config file to 1); Homing's replicas keep each other in step through NATS "
                + "instead: use --replica-sync nats://HOST:PORT (DIFFERENCES.md says why)");
    }

    @Test
    void severalNatsServersAreOneReplicaSyncAndCredentialsInTheirUrlsAreRefused() {
        assertThat(gateway("--replica-sync", "nats://10.0.0.1:4222,nats://10.0.0.2:4222").config()
                .get(Settings.REPLICA_SYNC)).containsExactly("nats://10.0.0.1:4222", "nats://10.0.0.2:4222");
        assertThatThrownBy(() -> gateway("--replica-sync", "nats://homing:s3cret@10.0.0.1:4222"))
                .isInstanceOf(ParameterException.class)
                .hasMessage("--replica-sync: 'nats://10.0.0.1:4222' must not carry credentials: give them in "
                        + "--replica-sync-credentials FILE or HOMING_NATS_* variables")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> gateway("--replica-sync", "http://10.0.0.1:4222"))
                .hasMessage("--replica-sync: 'http://10.0.0.1:4222' must be nats://HOST:PORT (or tls://)");
    }

    @Test
    void simulateTakesGatewayReplicasASplitAndABusDelay() {
        Config config = simulate("--gateways", "4", "--gateway-split", "random", "--bus-delay-ms", "0.5");

        assertThat(config.get(Settings.GATEWAYS)).isEqualTo(4);
        assertThat(config.get(Settings.GATEWAY_SPLIT)).isEqualTo("random");
        assertThat(config.get(Settings.BUS_DELAY_MS)).isEqualTo(0.5);
        assertThatThrownBy(() -> simulate("--gateway-split", "least-conn")).isInstanceOf(ParameterException.class);
    }

    @Test
    void theSimulatedEngineAndTheGatewayBothTakeATokenizerPath() {
        CommandLine commandLine = new CommandLine(new SimEngineFlags());
        commandLine.parseArgs("--tokenizer-path", "demo");
        Config config = CommandOptions.resolve(commandLine, Scope.SIM_ENGINE).config();

        assertThat(config.get(Settings.TOKENIZER_PATH)).isEqualTo("demo");
        assertThat(EngineSettings.server(config).tokenizer().name()).isEqualTo("demo");
        assertThat(EngineSettings.server(Config.defaults(Scope.SIM_ENGINE)).tokenizer().name()).isEqualTo("built-in");
        assertThat(gateway("--tokenizer-path", "demo").config().get(Settings.TOKENIZER_PATH)).isEqualTo("demo");
    }

    @Test
    void aTokenizerPathWithoutATokenizerIsRefusedSayingWhere() {
        CommandLine commandLine = new CommandLine(new SimEngineFlags());
        commandLine.parseArgs("--tokenizer-path", dir.toString());
        Config config = CommandOptions.resolve(commandLine, Scope.SIM_ENGINE).config();

        assertThatThrownBy(() -> EngineSettings.server(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no tokenizer.json at " + dir);
    }

    @Test
    void theSimulatedEngineTakesAFaultOfItsKvEventStream() {
        Config config = simEngine("--kv-events-config", "{\"endpoint\":\"tcp://127.0.0.1:*\"}",
                "--kv-events-fault", "drop:0.25");

        assertThat(EngineSettings.server(config).kvEvents().fault())
                .isEqualTo(new KvEventFault(KvEventFault.Kind.DROP, 0.25));
        assertThat(EngineSettings.server(Config.defaults(Scope.SIM_ENGINE)).kvEvents().fault())
                .isEqualTo(KvEventFault.NONE);
        assertThatThrownBy(() -> simEngine("--kv-events-fault", "lose:0.5"))
                .isInstanceOf(ParameterException.class).hasMessageContaining("must be none, drop:P or reorder:P");
    }
}
