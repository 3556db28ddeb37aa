package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.http.DisaggregationMode;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.sim.model.EngineConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimEngineCommandTest {

    @Test
    void withoutFlagsTheOptionsAreTheModelDefaults() {
        SimEngineCommand command = new SimEngineCommand();
        new CommandLine(command).parseArgs();

        SimEngineOptions options = command.options();

        assertThat(options.engine()).isEqualTo(EngineConfig.DEFAULTS);
        assertThat(options.port()).isEqualTo(30_000);
        assertThat(options.timeScale()).isEqualTo(1);
    }

    @Test
    void flagsReachTheOptions() {
        SimEngineCommand command = new SimEngineCommand();
        new CommandLine(command).parseArgs("--port", "0", "--kv-tokens", "50000", "--page-size", "16",
            "--time-scale", "100", "--decode-step-us", "12000", "--fail-rate", "0.25", "--fail-status", "503",
            "--reset-after-tokens", "7", "--record-request-ids", "ids.txt");

        SimEngineOptions options = command.options();

        assertThat(options.engine().kvTokens()).isEqualTo(50_000);
        assertThat(options.engine().pageSize()).isEqualTo(16);
        assertThat(options.engine().timing().decodeStepNanos()).isEqualTo(12_000_000);
        assertThat(options.timeScale()).isEqualTo(100);
        assertThat(options.faults().failRate()).isEqualTo(0.25);
        assertThat(options.faults().failStatus()).isEqualTo(503);
        assertThat(options.faults().resetAfterTokens()).isEqualTo(7);
        assertThat(options.requestIdLog()).isEqualTo(Path.of("ids.txt"));
    }

    @Test
    void anInvalidValueIsAUsageErrorWithoutAStackTrace() {
        assertThat(usageError("--kv-tokens", "-5")).contains("must be positive");
    }

    @Test
    void aPortInUseIsOneSentenceAndExitCodeOne() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            StringWriter err = new StringWriter();
            CommandLine commandLine = new CommandLine(new SimEngineCommand()).setErr(new PrintWriter(err));

            int exit = commandLine.execute("--host", "127.0.0.1", "--port", Integer.toString(taken.getLocalPort()));

            assertThat(exit).isEqualTo(1);
            assertThat(err.toString()).contains("cannot start").contains("Address already in use")
                    .doesNotContain("\tat ");
        }
    }

    @Test
    void theRoleFlagsAreSglangsAndReachTheOptions() {
        SimEngineCommand command = new SimEngineCommand();
        new CommandLine(command).parseArgs("--disaggregation-mode", "decode", "--kv-transfer-bandwidth-gbps", "100",
            "--kv-transfer-latency-ms", "0.5", "--disaggregation-bootstrap-timeout-secs", "30");

        SimEngineOptions options = command.options();

        assertThat(options.mode()).isEqualTo(DisaggregationMode.DECODE);
        assertThat(options.bootstrapPort()).isEqualTo(8998);
        assertThat(options.disaggregation().linkGigabitsPerSecond()).isEqualTo(100);
        assertThat(options.disaggregation().linkLatencyNanos()).isEqualTo(500_000);
        assertThat(options.disaggregation().bootstrapTimeoutNanos()).isEqualTo(30_000_000_000L);
        assertThat(options.dpSize()).isEqualTo(1);
    }

    @Test
    void aPrefillEnginesFirstLineNamesItsBoundBootstrapPort() {
        SimEngineCommand command = new SimEngineCommand();
        new CommandLine(command).parseArgs("--host", "127.0.0.1", "--port", "0", "--disaggregation-mode", "prefill",
            "--disaggregation-bootstrap-port", "0");
        SimEngineOptions options = command.options();

        try (SimEngineServer server = SimEngineServer.start(options)) {
            assertThat(SimEngineCommand.listening(options, server)).isEqualTo("simulated SGLang engine listening on "
                + server.url() + " (disaggregation mode prefill, bootstrap port " + server.bootstrapPort() + ")");
            assertThat(server.bootstrapPort()).isPositive();
        }
    }

    @Test
    void ranksWithARoleAreAUsageErrorSayingWhy() {
        assertThat(usageError("--disaggregation-mode", "prefill", "--dp-size", "2"))
            .contains("data-parallel ranks are simulated without disaggregation only");
    }

    @Test
    void kvEventsOnADecodeEngineAreAUsageErrorSayingWhy() {
        assertThat(usageError("--disaggregation-mode", "decode", "--kv-events-config",
            "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:*\"}"))
            .contains("a decode engine publishes no KV events");
    }

    @Test
    void anUnknownModeIsAUsageErrorNamingSglangsModes() {
        assertThat(usageError("--disaggregation-mode", "encode")).contains("null, prefill, decode");
    }

    /** What the command says when {@code args} are a usage error (exit code 2), checked to have no stack trace. */
    private static String usageError(String... args) {
        StringWriter err = new StringWriter();
        int exit = new CommandLine(new SimEngineCommand()).setErr(new PrintWriter(err)).execute(args);

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).doesNotContain("\tat ");
        return err.toString();
    }
}
