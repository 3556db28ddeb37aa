package dev.homing.cli;

import dev.homing.bench.cli.BenchCommand;
import dev.homing.bench.cli.CompareCommand;
import dev.homing.bench.cli.SimulateCommand;
import dev.homing.gateway.cli.LaunchCommand;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code homing} executable. {@code homing} alone, or followed by gateway flags, runs {@code homing launch}: the
 * same way {@code sglang_router.launch_router} takes its flags directly, so switching is a change of command name.
 *
 * <p>Only the command that runs is built: picocli instantiates every subcommand it is given (and so runs their
 * static set-up), which cost a third of the gateway's start-up when all six were declared on this class.
 */
@Command(name = "homing", mixinStandardHelpOptions = true, versionProvider = Homing.Version.class,
        description = "A cache-aware model gateway for SGLang and vLLM fleets.%n"
                + "With no command, or with gateway flags only, runs 'launch'.")
public final class Homing {

    /** Every command, in the order the help lists them. Holding a class does not initialise it. */
    static final List<Class<?>> COMMANDS = List.of(LaunchCommand.class, DemoCommand.class, SimEngineCommand.class,
            BenchCommand.class, SimulateCommand.class, CompareCommand.class);
    private static final Set<String> TOP_LEVEL_OPTIONS = Set.of("-h", "--help", "-V", "--version");

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        String[] withCommand = withDefaultCommand(args);
        return commandLine(withCommand[0]).execute(withCommand);
    }

    /**
     * The command line for a run whose first argument is {@code first}: with only the command it names, or with
     * every command when it asks for top-level help or the version.
     */
    static CommandLine commandLine(String first) {
        CommandLine commandLine = new CommandLine(new Homing());
        for (Class<?> command : COMMANDS) {
            if (TOP_LEVEL_OPTIONS.contains(first) || namesOf(command).contains(first)) {
                // Built on its own, so picocli runs the command's model transformer: its flags come from the table.
                commandLine.addSubcommand(new CommandLine(command));
            }
        }
        return commandLine;
    }

    /** Puts {@code launch} in front unless the first argument names a command or asks for top-level help. */
    static String[] withDefaultCommand(String[] args) {
        if (args.length > 0 && (TOP_LEVEL_OPTIONS.contains(args[0])
                || COMMANDS.stream().anyMatch(command -> namesOf(command).contains(args[0])))) {
            return args;
        }
        String[] withLaunch = new String[args.length + 1];
        withLaunch[0] = "launch";
        System.arraycopy(args, 0, withLaunch, 1, args.length);
        return withLaunch;
    }

    /** The name and aliases a command answers to, from its annotation. */
    static Set<String> namesOf(Class<?> command) {
        Command annotation = command.getAnnotation(Command.class);
        Set<String> names = new HashSet<>(List.of(annotation.aliases()));
        names.add(annotation.name());
        return names;
    }

    /** The version from the jar's manifest (set by the build), or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Homing.class.getPackage().getImplementationVersion();
            return new String[] {"homing " + (version == null ? "development" : version)};
        }
    }
}
