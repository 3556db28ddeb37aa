package dev.homing.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.config.Scope;
import dev.homing.config.Setting;
import dev.homing.config.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The flags of the commands that read settings are exactly the settings table's, as {@code homing} builds them. */
class CommandFlagsTest {

    static Stream<Arguments> commands() {
        return Stream.of(Arguments.of("launch", Scope.GATEWAY), Arguments.of("sim-engine", Scope.SIM_ENGINE),
                Arguments.of("simulate", Scope.SIMULATE), Arguments.of("compare", Scope.SIMULATE));
    }

    @ParameterizedTest
    @MethodSource("commands")
    void everyFlagOfTheCommandIsASettingOfItsScopeAndEverySettingIsAFlag(String command, Scope scope) {
        CommandLine commandLine = Homing.commandLine(command).getSubcommands().get(command);
        List<String> flags = new ArrayList<>();
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            assertThat(option.userObject()).as("%s of %s comes from the table", option.longestName(), command)
                    .isInstanceOf(Setting.class);
            flags.addAll(List.of(option.names()));
        }

        assertThat(flags).containsExactlyInAnyOrderElementsOf(
                Settings.in(scope).stream().flatMap(setting -> setting.flags().stream()).toList());
    }
}
