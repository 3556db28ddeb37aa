package dev.homing.gateway.deploy;

import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Renders the chart of deploy/helm/homing as {@code helm template RELEASE deploy/helm/homing --namespace NAMESPACE
 * -f overrides.yaml} does, through {@link TemplateSubset}: the chart's values deep-merged with the overrides, each
 * template not named {@code _*} rendered, the output cut into YAML documents and the empty ones dropped.
 */
final class ChartRenderer {

    static final Path CHART = Path.of("..", "deploy", "helm", "homing");
    private static final YAMLMapper YAML = new YAMLMapper();

    private ChartRenderer() {
    }

    /** The objects the chart renders with its default values, as release {@code homing} in namespace homing. */
    static List<JsonNode> render(String overrides) {
        return render("homing", "homing", overrides);
    }

    static List<JsonNode> render(String release, String namespace, String overrides) {
        try {
            Map<String, Object> values = readMap(Files.readString(CHART.resolve("values.yaml")));
            merge(values, readMap(overrides));
            Map<String, Object> chart = readMap(Files.readString(CHART.resolve("Chart.yaml")));
            Map<String, Object> root = Map.of(
                    "Values", values,
                    "Release", Map.of("Name", release, "Namespace", namespace, "Service", "Helm"),
                    "Chart", Map.of("Name", chart.get("name"), "Version", chart.get("version"),
                            "AppVersion", chart.get("appVersion")));
            TemplateSubset templates = new TemplateSubset(ChartRenderer::chartFile);
            Map<Path, List<TemplateSubset.Node>> parsed = new LinkedHashMap<>();
            try (Stream<Path> files = Files.list(CHART.resolve("templates"))) {
                for (Path file : files.sorted().toList()) {
                    parsed.put(file, templates.parse(file.getFileName().toString(), Files.readString(file)));
                }
            }
            List<JsonNode> objects = new ArrayList<>();
            parsed.forEach((file, nodes) -> {
                if (!file.getFileName().toString().startsWith("_")) {
                    objects.addAll(documents(templates.render(nodes, root)));
                }
            });
            return objects;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The YAML documents of a stream, the empty ones (comments alone) left out. */
    static List<JsonNode> documents(String rendered) {
        List<JsonNode> documents = new ArrayList<>();
        for (String document : rendered.split("(?m)^---\\s*$")) {
            JsonNode node = YAML.readTree(document);
            if (node != null && !node.isNull() && !node.isMissingNode()) {
                documents.add(node);
            }
        }
        return documents;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> readMap(String yaml) {
        Map<String, Object> map = yaml.isBlank() ? null : YAML.readValue(yaml, LinkedHashMap.class);
        return map == null ? new LinkedHashMap<>() : map;
    }

    /** Helm's merge of values: maps merge key by key, anything else is replaced. */
    @SuppressWarnings("unchecked")
    private static void merge(Map<String, Object> into, Map<String, Object> from) {
        from.forEach((key, value) -> {
            if (value instanceof Map<?, ?> inner && into.get(key) instanceof Map<?, ?> existing) {
                merge((Map<String, Object>) existing, (Map<String, Object>) inner);
            } else {
                into.put(key, value);
            }
        });
    }

    /** {@code .Files.Get}: a file of the chart (dashboards/ links to deploy/grafana), read through its link. */
    private static String chartFile(String path) {
        try {
            return Files.readString(CHART.resolve(path));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
