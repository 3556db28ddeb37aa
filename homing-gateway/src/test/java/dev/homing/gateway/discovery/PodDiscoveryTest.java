package dev.homing.gateway.discovery;

import dev.homing.config.Config;

import dev.homing.config.Settings;

import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.ApiServerLink;
import dev.homing.gateway.testing.EngineFleet;
import dev.homing.gateway.testing.KubernetesApi;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.Worker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Discovery against fabric8's mock API server in CRUD mode, with simulated engines on loopback as the pods'
 * endpoints: workers follow the pods, under load, through a cut watch and an unreachable API server.
 */
class PodDiscoveryTest {

    private static final String MODEL = "sim-model";
    private static final Map<String, String> LABELS = Map.of("app", "sglang");
    private static final Duration LONG = Duration.ofHours(1);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static KubernetesApi api;
    private static EngineFleet engines;
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    @BeforeAll
    static void start() {
        api = KubernetesApi.start();
        engines = EngineFleet.start(3, MODEL, 20);
    }

    @AfterAll
    static void stop() {
        engines.close();
        api.close();
    }

    /** A namespace of the test's own, so that tests never see each other's pods. */
    private static String namespace() {
        return "test-" + NAMESPACES.incrementAndGet();
    }

    private static DiscoverySettings settings(String namespace, String apiServer, Duration relist, Duration silence) {
        return new DiscoverySettings(true, LABELS, namespace, engines.port(), "sglang.ai/bootstrap-port", relist,
                silence, Duration.ofSeconds(30), apiServer);
    }

    private static Config config() {
        return RunningGateway.config(List.of()).with(Settings.POLICY, "round_robin");
    }

    /** Engine {@code i} as a Running and Ready pod of {@code namespace}. */
    private static void createPod(String namespace, int i) {
        api.create(KubernetesApi.pod(namespace, "engine-" + i, LABELS, EngineFleet.ip(i), true, engines.port()));
    }

    /** A namespace of its own with engines 0 and 1 as Running, Ready pods. */
    private static String namespaceWithTwoPods() {
        String ns = namespace();
        createPod(ns, 0);
        createPod(ns, 1);
        return ns;
    }

    /** A gateway discovering {@code ns} through {@code apiServer}, once engines 0 and 1 take traffic from it. */
    private static RunningGateway discoveringTwo(String ns, String apiServer, Duration relist) {
        RunningGateway gateway = RunningGateway.start(config(), settings(ns, apiServer, relist, LONG));
        awaitAvailable(gateway, engines.url(0));
        awaitAvailable(gateway, engines.url(1));
        return gateway;
    }

    private static Worker awaitAvailable(RunningGateway gateway, String url) {
        await().atMost(WAIT).until(() -> {
            Worker worker = gateway.gateway().registry().find(url);
            return worker != null && worker.available();
        });
        return gateway.gateway().registry().find(url);
    }

    private static HttpResponse<String> chat(RunningGateway gateway, int n, boolean stream) {
        return gateway.post("/v1/chat/completions", "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + (stream ? 48 : 4)
                + ",\"stream\":" + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"question " + n + "\"}]}");
    }

    private static double sentTo(RunningGateway gateway, String url) {
        return gateway.metric("homing_worker_requests_total{model=\"" + MODEL + "\",worker=\"" + url + "\"}");
    }

    @Test
    void podsCreatedReadyGetTraffic() {
        String ns = namespaceWithTwoPods();
        try (RunningGateway gateway = discoveringTwo(ns, api.url(), LONG)) {

            for (int i = 0; i < 4; i++) {
                assertThat(chat(gateway, i, false).statusCode()).isEqualTo(200);
            }

            assertThat(sentTo(gateway, engines.url(0))).isEqualTo(2);
            assertThat(sentTo(gateway, engines.url(1))).isEqualTo(2);
            // Set just after each worker is registered, and a worker can be active before then.
            await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_pods{state=\"serving\"}") == 2
                    && gateway.metric("homing_discovery_workers_added_total") == 2);
        }
    }

    @Test
    void aPodDeletedUnderLoadLosesNoRequestAndGetsNoneAfterTheDeletionIsSeen() throws Exception {
        String ns = namespaceWithTwoPods();
        try (RunningGateway gateway = discoveringTwo(ns, api.url(), LONG)) {
            Worker going = gateway.gateway().registry().find(engines.url(0));
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            List<Future<List<HttpResponse<String>>>> clients = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(6);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            try {
                for (int c = 0; c < 6; c++) {
                    clients.add(pool.submit(() -> {
                        List<HttpResponse<String>> answers = new ArrayList<>();
                        // Bounded in count and time.
                        while (!stop.get() && answers.size() < 100 && System.nanoTime() < deadline) {
                            answers.add(chat(gateway, sent.incrementAndGet(), true));
                        }
                        return answers;
                    }));
                }
                await().atMost(WAIT).until(() -> going.inFlight() > 0);
                api.delete(ns, "engine-0");
                await().atMost(WAIT).until(() -> going.state() != Worker.State.ACTIVE);
                // Requests placed on it before the deletion was seen finish; then its count stays.
                await().atMost(WAIT).until(() -> going.inFlight() == 0);
                double sentBeforeDeletionSeen = sentTo(gateway, engines.url(0));
                int sentAtThatPoint = sent.get();
                await().atMost(WAIT).until(() -> sent.get() >= sentAtThatPoint + 24);
                stop.set(true);

                List<HttpResponse<String>> answers = new ArrayList<>();
                for (Future<List<HttpResponse<String>>> client : clients) {
                    answers.addAll(client.get());
                }
                assertThat(answers).allSatisfy(answer -> {
                    assertThat(answer.statusCode()).isEqualTo(200);
                    assertThat(answer.body()).endsWith("data: [DONE]\n\n");
                });
                assertThat(sentTo(gateway, engines.url(0))).isEqualTo(sentBeforeDeletionSeen);
                await().atMost(WAIT).until(() -> gateway.gateway().registry().find(engines.url(0)) == null);
                assertThat(gateway.metric("homing_discovery_workers_drained_total{reason=\"deleted\"}"))
                        .isEqualTo(1);
                // Counted on the discovery thread once the drain that took the worker out of the registry is over.
                await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_workers_removed_total") == 1);
            } finally {
                stop.set(true);
                pool.shutdown();
            }
        }
    }

    @Test
    void aPodThatTurnsUnreadyStopsGettingTrafficAndReturnsWhenReadyAgain() {
        String ns = namespaceWithTwoPods();
        try (RunningGateway gateway = discoveringTwo(ns, api.url(), LONG)) {
            Worker flapping = gateway.gateway().registry().find(engines.url(1));

            api.ready(ns, "engine-1", false);
            await().atMost(WAIT).until(() -> !flapping.available());
            double before = sentTo(gateway, engines.url(1));
            for (int i = 0; i < 4; i++) {
                assertThat(chat(gateway, i, false).statusCode()).isEqualTo(200);
            }
            assertThat(sentTo(gateway, engines.url(1))).isEqualTo(before);

            api.ready(ns, "engine-1", true);
            awaitAvailable(gateway, engines.url(1));
            for (int i = 0; i < 4; i++) {
                assertThat(chat(gateway, i, false).statusCode()).isEqualTo(200);
            }
            assertThat(sentTo(gateway, engines.url(1))).isGreaterThan(before);
            assertThat(gateway.metric("homing_discovery_workers_drained_total{reason=\"not_ready\"}"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aPodGivenADeletionTimestampIsDrained() {
        String ns = namespaceWithTwoPods();
        try (RunningGateway gateway = discoveringTwo(ns, api.url(), LONG)) {
            Worker going = gateway.gateway().registry().find(engines.url(1));

            api.deleteHeldBack(ns, "engine-1");

            await().atMost(WAIT).until(() -> going.state() == Worker.State.REMOVED);
            // The pod gauges are set just after the drain starts, which can end at once: wait on them too.
            await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_pods{state=\"terminating\"}") == 1);
            assertThat(gateway.metric("homing_discovery_workers_drained_total{reason=\"terminating\"}"))
                    .isEqualTo(1);
        }
    }

    @Test
    void aDeletionTheWatchMissedIsRepairedByTheNextListAndCounted() throws Exception {
        String ns = namespaceWithTwoPods();
        try (ApiServerLink link = ApiServerLink.start(api.port(), false);
             RunningGateway gateway = discoveringTwo(ns, link.url(), Duration.ofSeconds(2))) {
            Worker missed = gateway.gateway().registry().find(engines.url(1));
            await().atMost(WAIT).until(() -> link.silenceWatches() > 0);
            double listsBefore = gateway.metric("homing_discovery_lists_total{result=\"ok\"}");

            api.delete(ns, "engine-1");

            await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> !missed.available());
            double listsThen = gateway.metric("homing_discovery_lists_total{result=\"ok\"}");
            // The list under way at the deletion may predate it; the one after cannot.
            assertThat(listsThen - listsBefore).isLessThanOrEqualTo(3);
            assertThat(gateway.metric("homing_discovery_reconcile_corrections_total{missed=\"delete\"}"))
                    .isEqualTo(1);
            // The watch restarts just after the drain that made the worker unavailable.
            await().atMost(WAIT).until(
                    () -> gateway.metric("homing_discovery_watch_restarts_total{reason=\"missed_event\"}") == 1);
            await().atMost(WAIT).until(() -> missed.state() == Worker.State.REMOVED);
            assertThat(chat(gateway, 1, false).statusCode()).isEqualTo(200);
            link.refuse(true); // A silenced WebSocket would hold the gateway's close for Vert.x's close timeout.
        }
    }

    @Test
    void aSilentWatchIsRestartedAndWhatItMissedArrives() throws Exception {
        String ns = namespace();
        createPod(ns, 0);
        try (ApiServerLink link = ApiServerLink.start(api.port(), false);
             RunningGateway gateway = RunningGateway.start(config(),
                     settings(ns, link.url(), LONG, Duration.ofSeconds(2)))) {
            awaitAvailable(gateway, engines.url(0));
            await().atMost(WAIT).until(() -> link.silenceWatches() > 0);

            createPod(ns, 1);

            awaitAvailable(gateway, engines.url(1));
            assertThat(gateway.metric("homing_discovery_watch_restarts_total{reason=\"silent\"}")).isPositive();
            assertThat(gateway.metric("homing_discovery_lists_total{result=\"ok\"}")).isZero();
            link.refuse(true); // A silenced WebSocket would hold the gateway's close for Vert.x's close timeout.
        }
    }

    @Test
    void anUnreachableApiServerAtStartLeavesStaticWorkersServingUntilDiscoveryCatchesUp() throws Exception {
        Config withStaticWorker = config().with(Settings.WORKER_URLS, List.of(engines.url(2)));
        String ns = namespace();
        createPod(ns, 0);
        try (ApiServerLink link = ApiServerLink.start(api.port(), true);
             RunningGateway gateway = RunningGateway.start(withStaticWorker,
                     settings(ns, link.url(), Duration.ofSeconds(2), LONG))) {
            assertThat(chat(gateway, 0, false).statusCode()).isEqualTo(200);
            await().atMost(WAIT).until(() -> gateway.metric("homing_discovery_lists_total{result=\"failed\"}") > 0
                    && gateway.metric("homing_discovery_watch_errors_total") > 1);
            assertThat(gateway.gateway().registry().find(engines.url(0))).isNull();

            link.refuse(false);

            awaitAvailable(gateway, engines.url(0));
            for (int i = 0; i < 4; i++) {
                assertThat(chat(gateway, i, false).statusCode()).isEqualTo(200);
            }
            assertThat(sentTo(gateway, engines.url(0))).isPositive();
            assertThat(sentTo(gateway, engines.url(2))).isGreaterThan(1);
        }
    }
}
