package dev.homing.cli;

import dev.homing.bench.cli.BenchCommand;
import dev.homing.bench.cli.CompareCommand;
import dev.homing.bench.cli.SimulateCommand;
import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.sim.SimEngineCommand;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code homing} executable. {@code homing} alone, or followed by gateway flags, runs {@code homing launch}: the
 * same way {@code sglang_router.launch_router} takes its flags directly, so switching is a change of command name.
 */
@Command(name = "homing", mixinStandardHelpOptions = true, versionProvider = Homing.Version.class,
        description = "A cache-aware model gateway for SGLang and vLLM fleets.%n"
                + "With no command, or with gateway flags only, runs 'launch'.",
        subcommands = {LaunchCommand.class, DemoCommand.class, SimEngineCommand.class, BenchCommand.class,
            SimulateCommand.class, CompareCommand.class})
public final class Homing {

    private static final Set<String> TOP_LEVEL_OPTIONS = Set.of("-h", "--help", "-V", "--version");

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String... args) {
        CommandLine commandLine = new CommandLine(new Homing());
        return commandLine.execute(withDefaultCommand(commandLine, args));
    }

    /** Puts {@code launch} in front unless the first argument names a command or asks for top-level help. */
    static String[] withDefaultCommand(CommandLine commandLine, String[] args) {
        if (args.length > 0 && (commandLine.getSubcommands().containsKey(args[0])
                || TOP_LEVEL_OPTIONS.contains(args[0]))) {
            return args;
        }
        String[] withLaunch = new String[args.length + 1];
        withLaunch[0] = "launch";
        System.arraycopy(args, 0, withLaunch, 1, args.length);
        return withLaunch;
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
