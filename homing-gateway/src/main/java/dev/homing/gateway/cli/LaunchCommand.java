package dev.homing.gateway.cli;

import dev.homing.config.CommandOptions;
import dev.homing.config.Scope;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.logging.LogSetup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code homing launch}: starts the gateway. Every flag of the reference gateway is accepted under its name with its
 * default, grouped as the reference groups them; the flags come from the settings table
 * ({@link dev.homing.config.Settings}), scope {@link Scope#GATEWAY}. Flags of features Homing does not have are
 * rejected at start-up with a message naming them (unless given their default value, which asks for nothing); none
 * is silently ignored. {@code --config FILE} reads the same settings from YAML; the command line wins over the file.
 */
@Command(name = "launch", aliases = "start", mixinStandardHelpOptions = true, sortOptions = false,
        abbreviateSynopsis = true, usageHelpWidth = 120, modelTransformer = CommandOptions.Gateway.class,
        description = "Start the Homing gateway in front of SGLang/vLLM workers.")
public final class LaunchCommand implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(LaunchCommand.class);

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Resolved resolved;
        try {
            resolved = resolve(spec.commandLine());
        } catch (ParameterException e) {
            // The problem in a sentence or two; the whole flag list after it would bury it.
            spec.commandLine().getErr().println("homing: " + e.getMessage().replace("\n", "\nhoming: "));
            spec.commandLine().getErr().println("Run 'homing launch --help' for every flag.");
            return CommandLine.ExitCode.USAGE;
        }
        GatewayConfig config = resolved.config();
        LogSetup.apply(config);
        resolved.warnings().forEach(LOG::warn);
        return UntilStopped.serve(() -> Gateway.start(config, port -> ProxyWarmup.run(config)), gateway -> { },
                spec.commandLine().getErr(), "homing");
    }

    /**
     * Parses {@code args} as {@code homing launch} would, YAML file included, and returns the validated
     * configuration without starting anything.
     *
     * @throws ParameterException with a message for the user on any problem
     */
    public static GatewayConfig parse(String... args) {
        return parseWithWarnings(args).config();
    }

    /** As {@link #parse}, with the warnings {@code homing launch} would log at start. */
    static Resolved parseWithWarnings(String... args) {
        CommandLine commandLine = new CommandLine(new LaunchCommand());
        commandLine.parseArgs(args);
        return resolve(commandLine);
    }

    /** A resolved command line: the validated configuration, and warnings to log once logging is set up. */
    record Resolved(GatewayConfig config, List<String> warnings) {
    }

    /** The configuration from a parsed command line and its {@code --config} file, checked. */
    static Resolved resolve(CommandLine parsed) {
        CommandOptions.Resolved resolved = CommandOptions.resolve(parsed, Scope.GATEWAY);
        GatewayConfig config;
        try {
            config = new GatewayConfig(resolved.config());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(parsed, e.getMessage(), e);
        }
        return new Resolved(config, DefaultPolicyWarning.forSettings(resolved.given()).stream().toList());
    }
}
