package dev.homing.gateway.deploy;

import dev.homing.config.Settings;
import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.gateway.config.GatewayConfig;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * The Helm chart of deploy/helm/homing, rendered by {@link ChartRenderer} (Debian serves no {@code helm}): with its
 * defaults it renders the objects of deploy/kubernetes, field for field, less the Namespace and Helm's labels; what
 * each value turns on is a well-formed object that the gateway's command line reads.
 */
class HelmChartTest {

    private static final Path MANIFESTS = Path.of("..", "deploy", "kubernetes");
    /** Labels Helm's conventions add beside app.kubernetes.io/name; never in a selector. */
    private static final List<String> HELM_LABELS = List.of("app.kubernetes.io/instance",
            "app.kubernetes.io/version", "app.kubernetes.io/managed-by", "helm.sh/chart");
    private static final String EVERYTHING_ON = """
            image: {pullPolicy: IfNotPresent}
            auth: {apiKey: client-key, adminApiKey: admin-key}
            tracing: {enabled: true}
            workerUrls: [http://engine-0.engines:30000]
            nats: {enabled: false}
            replicaSync: {urls: [nats://nats-a:4222, nats://nats-b:4222], credentialsSecret: nats-credentials}
            extraArgs: [--policy, cache_aware]
            serviceMonitor: {enabled: true, labels: {release: prometheus}}
            grafanaDashboard: {enabled: true}
            """;

    private static String key(JsonNode object) {
        return object.path("kind").asString() + " " + object.path("metadata").path("namespace").asString("") + "/"
                + object.path("metadata").path("name").asString();
    }

    private static Map<String, JsonNode> byKey(List<JsonNode> objects) {
        Map<String, JsonNode> byKey = new TreeMap<>();
        objects.forEach(object -> assertThat(byKey.put(key(object), object)).as("one %s", key(object)).isNull());
        return byKey;
    }

    private static Map<String, JsonNode> manifests() throws IOException {
        List<JsonNode> objects = new ArrayList<>();
        try (Stream<Path> files = Files.list(MANIFESTS)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                objects.addAll(ChartRenderer.documents(Files.readString(file)));
            }
        }
        return byKey(objects);
    }

    private static JsonNode only(List<JsonNode> objects, String kind, String name) {
        return objects.stream().filter(o -> key(o).equals(kind + " homing/" + name)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name + " in " + byKey(objects).keySet()));
    }

    private static List<String> gatewayArgs(List<JsonNode> objects) {
        List<String> args = new ArrayList<>();
        only(objects, "Deployment", "homing").at("/spec/template/spec/containers/0/args")
                .forEach(arg -> args.add(arg.asString()));
        return args;
    }

    private static GatewayConfig launch(List<String> args) {
        assertThat(args.getFirst()).isEqualTo("launch");
        return LaunchCommand.parse(args.subList(1, args.size()).toArray(String[]::new));
    }

    @Test
    void withItsDefaultsTheChartRendersTheObjectsOfDeployKubernetesLessTheNamespaceAndHelmsLabels()
            throws IOException {
        Map<String, JsonNode> expected = manifests();
        expected.keySet().removeIf(key -> key.startsWith("Namespace "));
        Map<String, JsonNode> rendered = byKey(ChartRenderer.render(""));
        rendered.values().forEach(object -> {
            JsonNode labels = object.path("metadata").path("labels");
            assertThat(labels.propertyNames()).as("Helm's labels on %s", key(object)).containsAll(HELM_LABELS);
            ((ObjectNode) labels).remove(HELM_LABELS);
        });

        assertThat(rendered.keySet()).containsExactlyElementsOf(expected.keySet());
        assertSoftly(softly -> expected.forEach((key, object) -> softly.assertThat(rendered.get(key)).as(key)
                .isEqualTo(object)));
    }

    @Test
    void everyObjectTheValuesTurnOnParsesIntoFabric8sTypedModel() {
        List<JsonNode> objects = ChartRenderer.render(EVERYTHING_ON);

        for (JsonNode object : objects) {
            HasMetadata parsed = Serialization.unmarshal(object.toString());
            assertThat(parsed).as(key(object)).isNotNull();
            if (!object.path("kind").asString().equals("ServiceMonitor")) {
                assertThat(parsed).as(key(object)).isNotInstanceOf(GenericKubernetesResource.class);
            }
        }
        assertThat(byKey(objects).keySet()).contains("Secret homing/homing-keys", "ServiceMonitor homing/homing",
                "ConfigMap homing/homing-dashboard").noneMatch(key -> key.contains("homing-nats"));
    }

    @Test
    void theGatewayReadsItsArgumentsAndTheKeysFromTheSecretAsItsConfigFile(@TempDir Path mount) throws IOException {
        List<JsonNode> objects = ChartRenderer.render(EVERYTHING_ON);
        JsonNode secret = only(objects, "Secret", "homing-keys");
        Path keys = Files.writeString(mount.resolve("keys.yaml"), secret.at("/stringData/keys.yaml").asString());
        JsonNode pod = only(objects, "Deployment", "homing").at("/spec/template/spec");
        assertThat(pod.at("/volumes/1/secret/secretName").asString()).isEqualTo("homing-keys");
        assertThat(pod.at("/containers/0/volumeMounts/1/mountPath").asString() + "/keys.yaml")
                .isEqualTo("/etc/homing/keys/keys.yaml");
        assertThat(pod.at("/containers/0/envFrom/0/secretRef/name").asString()).isEqualTo("nats-credentials");
        List<String> args = gatewayArgs(objects);
        assertThat(args).as("no key in the arguments").noneMatch(arg -> arg.contains("-key"));
        args.replaceAll(arg -> arg.equals("/etc/homing/keys/keys.yaml") ? keys.toString() : arg);

        GatewayConfig config = launch(args);

        assertThat(config.get(Settings.API_KEY)).isEqualTo("client-key");
        assertThat(config.get(Settings.ADMIN_API_KEY)).isEqualTo("admin-key");
        assertThat(config.get(Settings.REPLICA_SYNC)).containsExactly("nats://nats-a:4222", "nats://nats-b:4222");
        assertThat(config.get(Settings.WORKER_URLS)).containsExactly("http://engine-0.engines:30000");
        assertThat(config.get(Settings.ENABLE_TRACE)).isTrue();
        assertThat(config.get(Settings.OTLP_TRACES_ENDPOINT)).isEqualTo("otel-collector.observability:4318");
        assertThat(config.get(Settings.POLICY)).isEqualTo("cache_aware");
    }

    @Test
    void withoutTheChartsNatsServerTheReplicasRunWithoutABus() {
        List<JsonNode> objects = ChartRenderer.render("nats: {enabled: false}");

        assertThat(byKey(objects).keySet()).noneMatch(key -> key.contains("homing-nats"));
        assertThat(launch(gatewayArgs(objects)).get(Settings.REPLICA_SYNC)).isEmpty();
    }

    @Test
    void discoveryInAnotherNamespaceIsGrantedReadingPodsThereAndDiscoveryOffGrantsNothing() {
        List<JsonNode> objects = ChartRenderer.render("discovery: {namespace: engines}");
        Map<String, JsonNode> byKey = byKey(objects);

        assertThat(byKey.get("Role engines/homing-discovery").at("/rules/0/verbs").toString())
                .isEqualTo("[\"get\",\"list\",\"watch\"]");
        assertThat(byKey.get("RoleBinding engines/homing-discovery").at("/subjects/0/namespace").asString())
                .isEqualTo("homing");
        List<String> args = gatewayArgs(objects);
        assertThat(args.get(args.indexOf("--service-discovery-namespace") + 1)).isEqualTo("engines");

        List<JsonNode> off = ChartRenderer.render("discovery: {enabled: false}\nworkerUrls: [http://engine:30000]");
        assertThat(byKey(off).keySet()).noneMatch(key -> key.startsWith("Role"));
        assertThat(launch(gatewayArgs(off)).get(Settings.WORKER_URLS)).containsExactly("http://engine:30000");
    }

    @Test
    void theServiceMonitorScrapesTheServicesMetricsPortAndCarriesTheLabelsPrometheusSelects() {
        List<JsonNode> objects = ChartRenderer.render(EVERYTHING_ON);
        JsonNode monitor = only(objects, "ServiceMonitor", "homing");
        JsonNode service = only(objects, "Service", "homing");

        assertThat(monitor.at("/metadata/labels/release").asString()).isEqualTo("prometheus");
        monitor.at("/spec/selector/matchLabels").properties().forEach(label -> assertThat(
                service.at("/metadata/labels").path(label.getKey())).as(label.getKey()).isEqualTo(label.getValue()));
        String port = monitor.at("/spec/endpoints/0/port").asString();
        assertThat(service.at("/spec/ports")).anySatisfy(p -> assertThat(p.path("name").asString()).isEqualTo(port));
        assertThat(port).isEqualTo("metrics");
    }

    @Test
    void theDashboardConfigMapHoldsTheDashboardOfDeployGrafana() throws IOException {
        JsonNode configMap = only(ChartRenderer.render(EVERYTHING_ON), "ConfigMap", "homing-dashboard");
        JsonMapper json = new JsonMapper();

        assertThat(configMap.at("/metadata/labels/grafana_dashboard").asString()).isEqualTo("1");
        assertThat(json.readTree(configMap.at("/data/homing-dashboard.json").asString())).isEqualTo(
                json.readTree(Files.readString(Path.of("..", "deploy", "grafana", "homing-dashboard.json"))));
    }

    @Test
    void everyValueOfTheChartIsInTheValuesTableOfKubernetesMd() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "KUBERNETES.md"));
        String table = doc.substring(doc.indexOf("## Helm"), doc.indexOf("## RBAC"));
        JsonNode values = new YAMLMapper().readTree(Files.readString(ChartRenderer.CHART.resolve("values.yaml")));

        assertThat(values.propertyNames()).isNotEmpty()
                .allSatisfy(value -> assertThat(table).contains("`" + value));
    }

    /**
     * Where a {@code helm} binary is on the PATH (not in CI: Debian serves none), it renders what the renderer does;
     * this keeps the renderer honest when it or the chart changes.
     */
    @Test
    void helmTemplateWhereHelmIsInstalledRendersWhatTheRendererRenders(@TempDir Path dir) throws Exception {
        Optional<Path> helm = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(entry -> Path.of(entry, "helm")).filter(Files::isExecutable).findFirst();
        Assumptions.assumeTrue(helm.isPresent(), "no helm on the PATH");
        for (String values : List.of("", EVERYTHING_ON, "discovery: {enabled: false, namespace: engines}")) {
            Path file = Files.writeString(dir.resolve("values.yaml"), values);
            Path out = dir.resolve("rendered.yaml");
            Process process = new ProcessBuilder(helm.get().toString(), "template", "homing",
                    ChartRenderer.CHART.toString(), "--namespace", "homing", "-f", file.toString())
                    .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("helm template finished").isTrue();
            assertThat(process.exitValue()).as("helm template's exit code").isZero();
            List<JsonNode> byHelm = ChartRenderer.documents(Files.readString(out));
            assertThat(byKey(ChartRenderer.render(values))).as(values).isEqualTo(byKey(byHelm));
        }
    }

    @Test
    void aTemplateOutsideTheSubsetTheRendererImplementsIsRefusedByName() {
        TemplateSubset subset = new TemplateSubset(path -> "");

        assertThatThrownBy(() -> subset.parse("t", "{{ with .Values }}x{{ end }}"))
                .hasMessageContaining("'with .Values' is outside the chart's template subset");
        assertThatThrownBy(() -> subset.render(subset.parse("t", "{{ .Values.name | upper }}"),
                Map.of("Values", Map.of("name", "homing"))))
                .hasMessageContaining("'upper' is outside the chart's template subset");
    }
}
