package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class HomingTest {

    private final CommandLine commandLine = new CommandLine(new Homing());

    @Test
    void gatewayFlagsAloneRunTheLaunchCommand() {
        assertThat(Homing.withDefaultCommand(commandLine, new String[] {"--worker-urls", "http://127.0.0.1:1"}))
                .containsExactly("launch", "--worker-urls", "http://127.0.0.1:1");
    }

    @Test
    void noArgumentsRunTheLaunchCommand() {
        assertThat(Homing.withDefaultCommand(commandLine, new String[0])).containsExactly("launch");
    }

    @Test
    void aNamedCommandRunsAsGiven() {
        assertThat(Homing.withDefaultCommand(commandLine, new String[] {"sim-engine", "--port", "0"}))
                .containsExactly("sim-engine", "--port", "0");
        assertThat(Homing.withDefaultCommand(commandLine, new String[] {"launch"})).containsExactly("launch");
    }

    @Test
    void topLevelHelpIsNotTakenForAGatewayFlag() {
        assertThat(Homing.withDefaultCommand(commandLine, new String[] {"--help"})).containsExactly("--help");
    }
}
