package dev.homing.gateway.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges the Prometheus text of several workers into one exposition: every sample gets a {@code worker_addr} label,
 * and the samples of one family stay together under one HELP/TYPE header, as the text format requires. Not
 * thread-safe; one instance per merge.
 */
public final class EngineMetricsMerge {

    /** Family name to its header lines and samples, in first-seen order. */
    private final Map<String, Family> families = new LinkedHashMap<>();

    private static final class Family {
        final List<String> header = new ArrayList<>();
        final List<String> samples = new ArrayList<>();
    }

    public EngineMetricsMerge add(String workerAddr, String text) {
        String current = null;
        String label = "worker_addr=\"" + workerAddr.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                String[] parts = line.split(" ", 4);
                if (parts.length < 3) {
                    continue;
                }
                current = parts[2];
                Family family = families.computeIfAbsent(current, k -> new Family());
                if (!family.header.contains(line)
                        && family.header.stream().noneMatch(h -> h.startsWith(line.substring(0, 7)))) {
                    family.header.add(line);
                }
                continue;
            }
            if (line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            String name = brace >= 0 && (space < 0 || brace < space) ? line.substring(0, brace)
                    : space >= 0 ? line.substring(0, space) : line;
            String family = current != null && name.startsWith(current) ? current : name;
            String labelled = brace >= 0 && (space < 0 || brace < space)
                    ? line.substring(0, brace + 1) + label + (line.charAt(brace + 1) == '}' ? "" : ",")
                            + line.substring(brace + 1)
                    : name + "{" + label + "}" + line.substring(name.length());
            families.computeIfAbsent(family, k -> new Family()).samples.add(labelled);
        }
        return this;
    }

    public String text() {
        StringBuilder out = new StringBuilder();
        for (Family family : families.values()) {
            family.header.forEach(h -> out.append(h).append('\n'));
            family.samples.forEach(s -> out.append(s).append('\n'));
        }
        return out.toString();
    }
}
