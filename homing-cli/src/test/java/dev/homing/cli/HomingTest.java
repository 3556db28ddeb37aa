package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
    void topLevelHelpListsEveryCommand() {
        assertThat(Homing.commandLine("--help").getSubcommands()).containsOnlyKeys("launch", "start", "demo",
                "sim-engine", "bench", "simulate", "compare");
    }
}
