package dev.homing.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * A command's picocli options, made from the table: one option per setting of its scope, under its group's heading,
 * with its help and default. picocli only collects the texts given; the table parses them, so a flag and its YAML key
 * accept the same values. A command names its scope with one of the model transformers here
 * ({@code @Command(modelTransformer = CommandOptions.Gateway.class)}); {@link #resolve} turns its parsed command line
 * into a checked {@link Config}.
 */
public final class CommandOptions {

    private CommandOptions() {
    }

    /** {@code homing launch}'s options. */
    public static final class Gateway implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return addTo(spec, Scope.GATEWAY);
        }
    }

    /** {@code homing sim-engine}'s options. */
    public static final class SimEngine implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return addTo(spec, Scope.SIM_ENGINE);
        }
    }

    /** {@code homing simulate}'s and {@code homing compare}'s options. */
    public static final class Simulate implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return addTo(spec, Scope.SIMULATE);
        }
    }

    /** The configuration a command line gives, and the settings it (or its file) gave explicitly. */
    public record Resolved(Config config, Set<Setting<?>> given) {
    }

    /** Adds an option for each setting of {@code scope}, grouped as the table groups them. */
    static CommandSpec addTo(CommandSpec spec, Scope scope) {
        Map<Group, ArgGroupSpec.Builder> groups = new EnumMap<>(Group.class);
        for (Setting<?> setting : Settings.in(scope)) {
            OptionSpec option = option(setting);
            Group group = setting.group();
            if (group.heading() == null) {
                spec.addOption(option);
            } else {
                groups.computeIfAbsent(group, g -> ArgGroupSpec.builder().heading("%n" + g.heading() + "%n")
                        .validate(false).exclusive(false).order(g.ordinal())).addArg(option);
            }
        }
        groups.values().forEach(group -> spec.addArgGroup(group.build()));
        return spec;
    }

    private static OptionSpec option(Setting<?> setting) {
        List<String> description = new ArrayList<>(List.of(setting.description().replace("%", "%%")));
        String shown = setting.defaultText();
        if (!setting.isSwitch() || Boolean.TRUE.equals(setting.defaultValue())) {
            if (!shown.equals("none")) {
                description.add("  Default: " + shown.replace("%", "%%"));
            }
        }
        OptionSpec.Builder option = OptionSpec.builder(setting.flags().toArray(String[]::new))
                .description(description.toArray(String[]::new)).userObject(setting);
        if (setting.isSwitch()) {
            // picocli negates relative to its own default, which it never gets: --x is on, --no-x off.
            option.type(boolean.class).negatable(Boolean.TRUE.equals(setting.defaultValue()));
        } else if (setting.type().isList()) {
            option.type(List.class).auxiliaryTypes(String.class).paramLabel(setting.paramLabel())
                    .arity(setting.arity() == null ? "1..*" : setting.arity());
            if (!setting.notYet()) {
                // The table splits every list on commas; help shows it where the flag is of any use.
                option.splitRegex(",");
            }
        } else {
            option.type(String.class).paramLabel(setting.paramLabel());
        }
        return option.build();
    }

    /**
     * The configuration of a parsed command line: the table's defaults, then the {@code --config} file's values
     * (gateway), then the command line's. A flag of a feature Homing has not built, given any value but its
     * default, stops it; so does any value its setting refuses.
     *
     * @throws ParameterException with every problem, each naming its flag, one a line
     */
    public static Resolved resolve(CommandLine parsed, Scope scope) {
        Map<Setting<?>, List<String>> fromCommandLine = given(parsed.getParseResult());
        Map<Setting<?>, List<String>> fromFile = Map.of();
        List<String> file = fromCommandLine.get(Settings.CONFIG);
        if (scope == Scope.GATEWAY && file != null) {
            try {
                fromFile = ConfigFile.read(Path.of(file.getLast()), scope);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(parsed, e.getMessage(), e);
            }
        }
        Config config = Config.defaults(scope);
        List<String> problems = new ArrayList<>();
        Map<Setting<?>, Object> fileValues = new LinkedHashMap<>();
        for (Map.Entry<Setting<?>, List<String>> value : fromFile.entrySet()) {
            config = set(config, value.getKey(), value.getValue(), problems, " (config file " + file.getLast() + ")");
            fileValues.put(value.getKey(), config.get(value.getKey()));
        }
        for (Map.Entry<Setting<?>, List<String>> value : fromCommandLine.entrySet()) {
            config = set(config, value.getKey(), value.getValue(), problems, "");
        }
        if (problems.isEmpty()) {
            problems.addAll(notYetGiven(config, fromCommandLine.keySet(), fileValues));
        }
        if (problems.isEmpty()) {
            problems.addAll(config.problems());
        }
        if (!problems.isEmpty()) {
            throw new ParameterException(parsed, String.join("\n", problems));
        }
        Set<Setting<?>> given = new HashSet<>(fromFile.keySet());
        given.addAll(fromCommandLine.keySet());
        return new Resolved(config, Set.copyOf(given));
    }

    /** The texts given for each setting on a parsed command line, in the order of the table. */
    static Map<Setting<?>, List<String>> given(ParseResult parsed) {
        Map<Setting<?>, List<String>> given = new LinkedHashMap<>();
        for (OptionSpec option : parsed.matchedOptionsSet()) {
            if (option.userObject() instanceof Setting<?> setting) {
                given.put(setting, List.copyOf(option.originalStringValues()));
            }
        }
        return given;
    }

    private static <T> Config set(Config config, Setting<T> setting, List<String> texts, List<String> problems,
                                  String source) {
        try {
            return config.with(setting, setting.parse(texts));
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage() + source);
            return config;
        }
    }

    /** Flags of features not built, given another value than their default on the command line or in the file. */
    private static List<String> notYetGiven(Config config, Set<Setting<?>> onCommandLine,
                                            Map<Setting<?>, Object> fromFile) {
        List<String> problems = new ArrayList<>();
        if (config.scope() != Scope.GATEWAY) {
            // A compatibility row is the gateway's: a setting not built there may be built in another command.
            return problems;
        }
        for (Setting<?> setting : Settings.in(config.scope())) {
            if (!setting.notYet()) {
                continue;
            }
            String instead = setting.compatibility().instead();
            String refused = setting.flag() + (instead == null ? " is not supported by Homing yet ("
                    : " is not supported by Homing (");
            String after = instead == null ? ")" : "); " + instead;
            if (onCommandLine.contains(setting) && !config.isDefault(setting)) {
                problems.add(refused + given(setting, config) + after);
            } else if (fromFile.containsKey(setting)
                    && !Objects.equals(fromFile.get(setting), setting.defaultValue())) {
                problems.add(refused + "set in the config file to " + format(setting, fromFile.get(setting)) + after);
            }
        }
        return problems;
    }

    private static <T> String given(Setting<T> setting, Config config) {
        return setting.isSwitch() ? "given" : "given " + setting.type().format(config.get(setting));
    }

    @SuppressWarnings("unchecked")
    private static <T> String format(Setting<T> setting, Object value) {
        return setting.type().format((T) value);
    }
}
