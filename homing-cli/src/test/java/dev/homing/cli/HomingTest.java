package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class HomingTest {

    @Test
    void gatewayFlagsAloneRunTheLaunchCommand() {
        assertThat(Homing.withDefaultCommand(new String[] {"--worker-urls", "http://127.0.0.1:1"}))
                .containsExactly("launch", "--worker-urls", "http://127.0.0.1:1");
    }

    @Test
    void noArgumentsRunTheLaunchCommand() {
        assertThat(Homing.withDefaultCommand(new String[0])).containsExactly("launch");
    }

    @Test
    void aNamedCommandRunsAsGiven() {
        assertThat(Homing.withDefaultCommand(new String[] {"sim-engine", "--port", "0"}))
                .containsExactly("sim-engine", "--port", "0");
        assertThat(Homing.withDefaultCommand(new String[] {"launch"})).containsExactly("launch");
        assertThat(Homing.withDefaultCommand(new String[] {"start"})).containsExactly("start");
    }

    @Test
    void topLevelHelpIsNotTakenForAGatewayFlag() {
        assertThat(Homing.withDefaultCommand(new String[] {"--help"})).containsExactly("--help");
    }

    @Test
    void aRunBuildsOnlyTheCommandItNames() {
        assertThat(Homing.commandLine("launch").getSubcommands()).containsOnlyKeys("launch", "start");
        assertThat(Homing.commandLine("start").getSubcommands()).containsOnlyKeys("launch", "start");
        assertThat(Homing.commandLine("bench").getSubcommands()).containsOnlyKeys("bench");
    }

    @Test
    void aTraceOfTheWrongFormatEndsInOneLineNamingItNotAStackTrace(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("azure.csv");
        Files.write(csv, List.of("TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:15:46.6805900,374,44"));
        CommandLine commandLine = Homing.commandLine("simulate");
        StringWriter err = new StringWriter();
        commandLine.setErr(new PrintWriter(err));

        int exit = commandLine.execute("simulate", "--trace", csv.toString(), "--workers", "2");

        assertThat(exit).isEqualTo(1);
        assertThat(err.toString()).contains("cannot run the workload: " + csv + " line 1: not a Mooncake trace row")
                .contains("--workload azure").doesNotContain("\tat ");
    }

    @Test
    void topLevelHelpListsEveryCommand() {
        assertThat(Homing.commandLine("--help").getSubcommands()).containsOnlyKeys("launch", "start", "demo",
                "sim-engine", "bench", "simulate", "compare");
    }
}
