package dev.homing.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The YAML file of {@code --config}. A key is a flag's name without its dashes, in kebab or snake case
 * ({@code worker-urls}, {@code worker_urls}); it may also be split at any dash into a dotted key
 * ({@code retry.max-retries}) or nested mappings ({@code retry: {max-retries: 3}}). A value is a scalar or, for a
 * list setting, a list of scalars (or one scalar with commas, as on the command line). Unknown keys, and a setting
 * given twice, are refused with the file's name, so a typo never passes unnoticed.
 */
public final class ConfigFile {

    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    private ConfigFile() {
    }

    /**
     * The file's values for {@code scope}'s settings, as the texts the command line would give them.
     *
     * @throws IllegalArgumentException naming the file: unreadable, not a mapping, unknown keys, a setting twice
     */
    public static Map<Setting<?>, List<String>> read(Path file, Scope scope) {
        Map<String, Setting<?>> byName = new HashMap<>();
        for (Setting<?> setting : Settings.in(scope)) {
            if (setting.fileKey()) {
                setting.flags().forEach(flag -> byName.put(flag.substring(2), setting));
            }
        }
        Map<String, Object> leaves = new LinkedHashMap<>();
        flatten("", mapping(file), leaves);
        Map<Setting<?>, List<String>> values = new LinkedHashMap<>();
        Map<Setting<?>, String> keyOf = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Object> leaf : leaves.entrySet()) {
            String key = leaf.getKey();
            Setting<?> setting = byName.get(key.replace('_', '-').replace('.', '-'));
            if (setting == null) {
                unknown.add(key);
                continue;
            }
            String earlier = keyOf.putIfAbsent(setting, key);
            if (earlier != null) {
                problems.add(setting.flag() + " is set twice, as '" + earlier + "' and as '" + key + "'");
            } else if (leaf.getValue() instanceof List<?> list && !setting.type().isList()) {
                problems.add("'" + key + "' takes one value, not a list");
            } else if (leaf.getValue() != null) {
                values.put(setting, texts(leaf.getValue()));
            }
        }
        if (!unknown.isEmpty()) {
            problems.addFirst("unknown key(s) " + String.join(", ", unknown) + " (a key is a flag's name without its "
                    + "dashes, such as worker_urls or cache-threshold; a dotted or nested key splits it at a dash: "
                    + "retry.max-retries)");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException("config file " + file + ": " + String.join("\n", problems));
        }
        return values;
    }

    /** The file's top-level mapping. */
    private static Map<String, Object> mapping(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage(), e);
        }
        if (text.isBlank()) {
            return Map.of();
        }
        try {
            Map<String, Object> map = YAML.readValue(text, new TypeReference<LinkedHashMap<String, Object>>() { });
            return map == null ? Map.of() : map;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("config file " + file + " is not a YAML mapping: "
                    + e.getOriginalMessage(), e);
        }
    }

    /** Nested mappings as dotted keys: {@code retry: {max-retries: 3}} is {@code retry.max-retries: 3}. */
    private static void flatten(String prefix, Map<?, ?> mapping, Map<String, Object> leaves) {
        for (Map.Entry<?, ?> entry : mapping.entrySet()) {
            String key = prefix + entry.getKey();
            if (entry.getValue() instanceof Map<?, ?> nested) {
                flatten(key + ".", nested, leaves);
            } else {
                leaves.put(key, entry.getValue());
            }
        }
    }

    private static List<String> texts(Object value) {
        if (value instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return List.of(String.valueOf(value));
    }
}
