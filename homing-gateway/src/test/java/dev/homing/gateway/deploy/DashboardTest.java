package dev.homing.gateway.deploy;

import dev.homing.config.Settings;

import dev.homing.gateway.discovery.DiscoverySettings;
import dev.homing.gateway.testing.EngineFleet;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.KubernetesApi;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard and the Prometheus alert rules query only what a running gateway exports. The gateway here
 * has what makes every family appear: a discovered pod (a simulated engine), a failing static worker (retries, an
 * open circuit), admission control, and requests through it. The dashboard covers what an operator watches, and
 * docs/KUBERNETES.md explains every discovery family.
 */
class DashboardTest {

    private static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "homing-dashboard.json");
    private static final Path ALERTS = Path.of("..", "deploy", "prometheus", "alerts.yaml");
    private static final Path GUIDE = Path.of("..", "docs", "KUBERNETES.md");
    private static final Pattern METRIC = Pattern.compile("\\b(?:smg|homing)_[a-z0-9_]+\\b");

    private static KubernetesApi api;
    private static EngineFleet engines;
    private static FakeWorker failing;
    /** Every sample name the gateway exported. */
    private static Set<String> exported;

    @BeforeAll
    static void runAGatewayThroughEverything() {
        api = KubernetesApi.start();
        engines = EngineFleet.start(1, "sim-model", 50);
        failing = FakeWorker.start("sim-model");
        failing.behaviour(FakeWorker.Behaviour.FAIL_500);
        api.create(KubernetesApi.pod("dashboard", "engine-0", Map.of("app", "sglang"), EngineFleet.ip(0), true, 0));
        DiscoverySettings discovery = new DiscoverySettings(true, Map.of("app", "sglang"), "dashboard",
                engines.port(), "sglang.ai/bootstrap-port", Duration.ofSeconds(1), Duration.ofHours(1),
                Duration.ofSeconds(5), api.url());
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(failing))
                .with(Settings.MAX_CONCURRENT_REQUESTS, 64).with(Settings.CB_FAILURE_THRESHOLD, 1), discovery)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 2);
            // Bounded: the policy reaches the failing worker within a few distinct requests.
            int sent = 0;
            for (; sent < 20 && gateway.metric("smg_worker_retries_total{endpoint=\"/v1/chat/completions\","
                    + "reason=\"retryable_status\",worker_type=\"regular\"}") == 0; sent++) {
                gateway.post("/v1/chat/completions", "{\"model\":\"sim-model\",\"max_tokens\":4,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"question number " + sent + "\"}]}");
            }
            // A relayed answer's record and metrics are written just after its last bytes go out.
            int answered = sent;
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(
                    "smg_http_requests_total{method=\"POST\",path=\"/v1/chat/completions\"}") == answered);
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> gateway.metric("homing_discovery_lists_total{result=\"ok\"}") > 0);
            exported = sampleNames(gateway.scrapeMetrics());
        }
    }

    @AfterAll
    static void stop() {
        failing.close();
        engines.close();
        api.close();
    }

    private static Set<String> sampleNames(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static Set<String> metricsIn(Iterable<String> expressions) {
        Set<String> names = new TreeSet<>();
        for (String expression : expressions) {
            Matcher matcher = METRIC.matcher(expression);
            while (matcher.find()) {
                names.add(matcher.group());
            }
        }
        return names;
    }

    private static List<String> dashboardQueries() throws IOException {
        return JsonMapper.shared().readTree(Files.readString(DASHBOARD)).findValues("expr").stream()
                .map(JsonNode::asString).toList();
    }

    @Test
    void everyMetricADashboardPanelQueriesIsExported() throws IOException {
        assertThat(dashboardQueries()).isNotEmpty();
        assertThat(exported).containsAll(metricsIn(dashboardQueries()));
    }

    @Test
    void everyMetricAnAlertRuleQueriesIsExported() throws IOException {
        List<String> rules = new YAMLMapper().readTree(Files.readString(ALERTS)).findValues("expr").stream()
                .map(JsonNode::asString).toList();

        assertThat(rules).isNotEmpty();
        assertThat(exported).containsAll(metricsIn(rules));
    }

    @Test
    void theDashboardShowsHitRatesLatencyCircuitsRetriesTheQueueAndEveryDiscoveryFamily() throws IOException {
        Set<String> queried = metricsIn(dashboardQueries());

        assertThat(queried).contains("homing_cached_tokens_total", "homing_prompt_tokens_total",
                "homing_predicted_cached_chars_total", "homing_routed_chars_total",
                "homing_upstream_first_byte_seconds_bucket", "smg_worker_cb_state", "smg_worker_retries_total",
                "smg_http_rate_limit_total");
        assertThat(queried).containsAll(discoveryFamilies());
    }

    @Test
    void theKubernetesGuideExplainsEveryDiscoveryFamily() throws IOException {
        String guide = Files.readString(GUIDE);

        assertThat(discoveryFamilies()).isNotEmpty().allSatisfy(family -> assertThat(guide).contains(family));
    }

    private static Set<String> discoveryFamilies() {
        Set<String> families = new TreeSet<>();
        exported.stream().filter(n -> n.startsWith("homing_discovery_")).forEach(families::add);
        return families;
    }
}
