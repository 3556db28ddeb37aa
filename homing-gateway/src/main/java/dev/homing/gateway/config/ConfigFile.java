package dev.homing.gateway.config;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The YAML configuration file: keys are the command-line flag names without their dashes, in snake or kebab case
 * ({@code worker_urls} or {@code worker-urls}); values are scalars or lists. Unknown keys are refused with the
 * file's name, so a typo never goes unnoticed.
 */
public final class ConfigFile {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private ConfigFile() {
    }

    /** The file's top-level mapping. */
    public static Map<String, Object> read(Path file) {
        try {
            String text = Files.readString(file);
            if (text.isBlank()) {
                return Map.of();
            }
            Map<String, Object> map = YAML.readValue(text, new TypeReference<LinkedHashMap<String, Object>>() { });
            return map == null ? Map.of() : map;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("config file " + file + " is not a YAML mapping: "
                    + e.getOriginalMessage(), e);
        }
    }

    /**
     * The file's values as picocli default values, keyed by each option's longest name. Lists are joined with
     * commas (list options split on commas).
     *
     * @throws ParameterException for a key that names no flag, or a nested mapping
     */
    public static Map<String, String> toDefaults(Map<String, Object> file, CommandSpec spec) {
        Map<String, OptionSpec> byName = new HashMap<>();
        for (OptionSpec option : spec.options()) {
            for (String name : option.names()) {
                byName.put(name, option);
            }
        }
        Map<String, String> defaults = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, Object> entry : file.entrySet()) {
            String flag = "--" + entry.getKey().replace('_', '-');
            OptionSpec option = byName.get(flag);
            if (option == null || flag.equals("--config") || flag.equals("--help") || flag.equals("--version")) {
                unknown.add(entry.getKey());
                continue;
            }
            Object value = entry.getValue();
            if (value instanceof Map<?, ?>) {
                throw new ParameterException(spec.commandLine(), "config key '" + entry.getKey()
                        + "' must be a value or a list, not a mapping");
            }
            String text = value instanceof List<?> list
                    ? list.stream().map(String::valueOf).collect(Collectors.joining(","))
                    : value == null ? null : String.valueOf(value);
            if (text != null) {
                defaults.put(option.longestName(), text);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "unknown config key(s): " + String.join(", ", unknown)
                    + " (keys are flag names without dashes, such as worker_urls or cache-threshold)");
        }
        return defaults;
    }
}
