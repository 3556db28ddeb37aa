package dev.homing.cli.faults;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scraped Prometheus text page, read back sample by sample. */
final class PrometheusText {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+).*$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final String text;

    PrometheusText(String text) {
        this.text = text;
    }

    /**
     * The sum of the samples of {@code metric} whose labels include every {@code name, value} pair given; 0 when
     * none matches (a counter never incremented is not exported).
     */
    double sum(String metric, String... labelPairs) {
        Map<String, String> wanted = new HashMap<>();
        for (int i = 0; i < labelPairs.length; i += 2) {
            wanted.put(labelPairs[i], labelPairs[i + 1]);
        }
        double sum = 0;
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.matches() || !sample.group(1).equals(metric)) {
                continue;
            }
            if (labels(sample.group(2)).entrySet().containsAll(wanted.entrySet())) {
                sum += Double.parseDouble(sample.group(3));
            }
        }
        return sum;
    }

    /** The sum of the samples of {@code metric} whose label {@code name} has a value {@code value} accepts. */
    double sumWhere(String metric, String name, Predicate<String> value) {
        double sum = 0;
        for (String line : text.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (!line.startsWith("#") && sample.matches() && sample.group(1).equals(metric)
                    && value.test(labels(sample.group(2)).getOrDefault(name, ""))) {
                sum += Double.parseDouble(sample.group(3));
            }
        }
        return sum;
    }

    private static Map<String, String> labels(String labels) {
        Map<String, String> out = new HashMap<>();
        if (labels != null) {
            Matcher label = LABEL.matcher(labels);
            while (label.find()) {
                out.put(label.group(1), label.group(2));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return text;
    }
}
