package dev.homing.gateway.discovery;

import dev.homing.gateway.testing.EngineFleet;
import dev.homing.gateway.testing.KubernetesApi;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.Worker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code --selector}, {@code --service-discovery-namespace} and {@code --service-discovery-port} as the reference
 * reads them: every selector label must match, the namespace bounds the watch (none: every namespace), and the
 * worker is the pod IP on the discovery port; a pod without an IP, or declaring only another port, is left out.
 * Each test settles on a full list read after the pods were made, so what was left out stays out.
 */
class DiscoveryFlagsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static KubernetesApi api;
    private static EngineFleet engines;

    @BeforeAll
    static void start() {
        api = KubernetesApi.start();
        engines = EngineFleet.start(2, "sim-model", 50);
    }

    @AfterAll
    static void stop() {
        engines.close();
        api.close();
    }

    private static DiscoverySettings settings(Map<String, String> selector, String namespace, int port) {
        return new DiscoverySettings(true, selector, namespace, port, "sglang.ai/bootstrap-port",
                Duration.ofSeconds(1), Duration.ofHours(1), Duration.ofSeconds(5), api.url());
    }

    private static RunningGateway gateway(DiscoverySettings settings) {
        return RunningGateway.start(RunningGateway.config(List.of()), settings);
    }

    /** Waits for a full list read after now, then returns the URLs of every worker. */
    private static List<String> settledWorkers(RunningGateway gateway) {
        double lists = gateway.metric("homing_discovery_lists_total{result=\"ok\"}");
        await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_lists_total{result=\"ok\"}") >= lists + 2);
        return gateway.gateway().registry().workers().stream().map(Worker::url).sorted().toList();
    }

    /** The workers a gateway discovering {@code selector} in {@code namespace} settles on. */
    private static List<String> discovered(Map<String, String> selector, String namespace) {
        try (RunningGateway gateway = gateway(settings(selector, namespace, engines.port()))) {
            return settledWorkers(gateway);
        }
    }

    @Test
    void onlyPodsCarryingEveryLabelOfTheSelectorBecomeWorkers() {
        Map<String, String> selector = Map.of("app", "selector-test", "tier", "gpu");
        api.create(KubernetesApi.pod("sel", "both", selector, EngineFleet.ip(0), true, 0));
        api.create(KubernetesApi.pod("sel", "one", Map.of("app", "selector-test"), EngineFleet.ip(1), true, 0));

        assertThat(discovered(selector, "sel")).containsExactly(engines.url(0));
    }

    /** Engine 0 as a pod of {@code <app>-a}, engine 1 as a pod of {@code <app>-b}; returns their labels. */
    private static Map<String, String> podsInTwoNamespaces(String app) {
        Map<String, String> labels = Map.of("app", app);
        api.create(KubernetesApi.pod(app + "-a", "engine", labels, EngineFleet.ip(0), true, 0));
        api.create(KubernetesApi.pod(app + "-b", "engine", labels, EngineFleet.ip(1), true, 0));
        return labels;
    }

    @Test
    void theNamespaceFlagBoundsDiscoveryToThatNamespace() {
        Map<String, String> selector = podsInTwoNamespaces("namespace-test");

        assertThat(discovered(selector, "namespace-test-a")).containsExactly(engines.url(0));
    }

    @Test
    void withoutANamespaceEveryNamespaceIsWatched() {
        assertThat(discovered(podsInTwoNamespaces("every-namespace-test"), null))
                .containsExactly(engines.url(0), engines.url(1));
    }

    @Test
    void theWorkerIsThePodIpOnTheDiscoveryPortAndItsModelIsLearned() {
        Map<String, String> selector = Map.of("app", "port-test");
        api.create(KubernetesApi.pod("port", "engine", selector, EngineFleet.ip(0), true, engines.port()));

        try (RunningGateway gateway = gateway(settings(selector, "port", engines.port()))) {
            await().atMost(WAIT).until(() -> gateway.gateway().registry().healthyCount() == 1);
            Worker worker = gateway.gateway().registry().workers().iterator().next();
            assertThat(worker.url()).isEqualTo("http://" + EngineFleet.ip(0) + ":" + engines.port());
            assertThat(worker.modelId()).isEqualTo("sim-model");
            assertThat(worker.labels()).containsEntry("source", "kubernetes").containsEntry("pod", "port/engine");
        }
    }

    @Test
    void aPodWithoutAnIpOrDeclaringOnlyAnotherPortIsIgnored() {
        Map<String, String> selector = Map.of("app", "ignored-test");
        api.create(KubernetesApi.pod("ignored", "no-ip", selector, null, true, 0));
        api.create(KubernetesApi.pod("ignored", "elsewhere", selector, EngineFleet.ip(1), true,
                engines.port() + 1));
        api.create(KubernetesApi.pod("ignored", "engine", selector, EngineFleet.ip(0), true, 0));

        try (RunningGateway gateway = gateway(settings(selector, "ignored", engines.port()))) {
            assertThat(settledWorkers(gateway)).containsExactly(engines.url(0));
            assertThat(gateway.metric("homing_discovery_pods{state=\"no_ip\"}")).isEqualTo(1);
            assertThat(gateway.metric("homing_discovery_pods{state=\"other_port\"}")).isEqualTo(1);
            assertThat(gateway.metric("homing_discovery_pods{state=\"serving\"}")).isEqualTo(1);
        }
    }
}
