package dev.homing.bench.simulate;

import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.PseudoText;
import dev.homing.bench.workload.Turn;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.PolicyFactory;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.workers.Worker;
import dev.homing.gateway.workers.WorkerSpec;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.TimingModel;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gateway and the offline simulator drive one placement protocol, the core's: the same requests sent through a
 * live gateway to two simulated engines (real HTTP on loopback) and replayed by {@code homing simulate} show the
 * policy the same things, event by event.
 *
 * <p>What is compared, in order: every {@code select} (the routing text's length and hash; each worker's position,
 * availability, in-flight count and reported load; the decision's worker, branch, matched and text characters and
 * whether it holds the request), every first token (the worker) and every completion (the worker and the engine's
 * report: prompt tokens, cached tokens, whether the first token was told). Workers are named by their position, as
 * their ids differ (URLs against {@code http://worker-i}).
 *
 * <p>The sequence is deterministic: chat requests of one output token each (so an engine's first token is also its
 * end, which is when the gateway sees the first byte of a JSON answer), one after another, each answered before the
 * next is sent; and one held pair: a long prompt, then, while its prefill runs (a slow engine: about eight seconds
 * of it), a request relying on that prefix, which load_aware_affinity holds until the first one's token.
 */
class GatewayAndSimulatorTest {

    /**
     * Prefill at 1,000 tokens a second: the long prompt's (8,000 tokens) takes about eight seconds, which a
     * busy machine's pauses between the pair's two requests do not use up; the short prompts a third of a second.
     */
    private static final EngineConfig ENGINE = new EngineConfig(EngineConfig.DEFAULTS.kvTokens(),
            EngineConfig.DEFAULTS.pageSize(), EngineConfig.DEFAULTS.maxRunningRequests(),
            EngineConfig.DEFAULTS.chunkedPrefillSize(), EngineConfig.DEFAULTS.contextLength(),
            new TimingModel(1_000, 5_000_000, 8_000_000, 100_000, 40), EngineConfig.DEFAULTS.seed());
    /**
     * load_aware_affinity's defaults, but a held request waits up to a minute: far longer than the long prefill, so
     * that only the first request's token ends the pair's hold, live as in the simulator.
     */
    private static final PolicyConfig POLICY = PolicyConfig.DEFAULTS.withSeed(11)
            .withAffinity(PolicyConfig.DEFAULTS.affinity().withPrefillWaitMillis(60_000));
    private static final String SHORT_DOC = PseudoText.of(1, 300);
    private static final String OTHER_DOC = PseudoText.of(2, 300);
    private static final String LONG_DOC = PseudoText.of(3, 8_000);
    /** Index of the held pair's first request in {@link #PROMPTS}. */
    private static final int PAIR = 5;
    private static final List<String> PROMPTS = List.of(
            SHORT_DOC + PseudoText.of(100, 20), SHORT_DOC + PseudoText.of(101, 20), OTHER_DOC + PseudoText.of(102, 20),
            OTHER_DOC + PseudoText.of(103, 20), SHORT_DOC + PseudoText.of(104, 20),
            LONG_DOC + PseudoText.of(105, 20), LONG_DOC + PseudoText.of(106, 20),
            LONG_DOC + PseudoText.of(107, 20));
    /**
     * Virtual time between requests: each is long answered before the next, the held pair too (and maintenance,
     * every 120 s, never runs).
     */
    private static final long SPACING_MICROS = 12_000_000;

    /** Writes down, one line an event, what a policy is told, naming workers by their position. */
    private static final class Recorder {
        final List<String> events = new CopyOnWriteArrayList<>();
        private final List<String> workerIds;

        Recorder(List<String> workerIds) {
            this.workerIds = workerIds;
        }

        RoutingPolicy watch(RoutingPolicy policy) {
            return new RoutingPolicy() {
                @Override
                public String name() {
                    return policy.name();
                }

                @Override
                public Decision select(List<WorkerView> workers, RoutingRequest request) {
                    Decision decision = policy.select(workers, request);
                    events.add("select text " + request.text().length() + "#" + request.text().hashCode()
                            + " key " + request.routingKey() + " " + workers.stream()
                            .map(w -> position(w.id()) + ":" + w.available() + ":" + w.inFlight() + ":"
                                    + w.reportedLoad()).collect(Collectors.joining(" "))
                            + " -> " + (decision.found() ? position(workers.get(decision.workerIndex()).id()) : "none")
                            + " " + decision.branch() + " " + decision.matchedChars() + "/" + decision.textChars()
                            + (decision.hold() == null ? "" : " hold"));
                    return decision;
                }

                @Override
                public void onFirstToken(String workerId, Decision decision) {
                    events.add("first token " + position(workerId));
                    policy.onFirstToken(workerId, decision);
                }

                @Override
                public void onCompleted(String workerId, RoutingRequest request, Decision decision,
                                        EngineReport report) {
                    events.add("completed " + position(workerId) + " " + report);
                    policy.onCompleted(workerId, request, decision, report);
                }

                @Override
                public void onWorkerCapacity(String workerId, long kvTokens) {
                    policy.onWorkerCapacity(workerId, kvTokens);
                }

                @Override
                public void onWorkerRemoved(String workerId) {
                    policy.onWorkerRemoved(workerId);
                }

                @Override
                public void maintain() {
                    policy.maintain();
                }
            };
        }

        private int position(String workerId) {
            return workerIds.indexOf(workerId);
        }
    }

    @Test
    void theLiveGatewayAndTheSimulatorShowThePolicyTheSameEvents() throws Exception {
        List<String> live = throughTheGateway();
        List<String> offline = throughTheSimulator();

        assertThat(live).as("the held pair's second request waits").anyMatch(event -> event.endsWith(" hold"));
        assertThat(live).hasSize(3 * PROMPTS.size());
        assertThat(live).containsExactlyElementsOf(offline);
    }

    private static List<String> throughTheSimulator() {
        List<Conversation> conversations = new ArrayList<>();
        for (int i = 0; i < PROMPTS.size(); i++) {
            // The pair's second request comes a millisecond after its first, well inside the first one's prefill.
            long start = i <= PAIR ? i * SPACING_MICROS : (i - 1) * SPACING_MICROS + (i == PAIR + 1 ? 1_000 : 0);
            conversations.add(new Conversation("c" + i, start, "", List.of(new Turn(PROMPTS.get(i), 0, 1))));
        }
        SimulationSettings settings = new SimulationSettings(2, ENGINE, POLICY,
                SimulationSettings.defaults(2).maintainIntervalNanos(), 0, false);
        Recorder recorder = new Recorder(List.of("http://worker-0", "http://worker-1"));
        SimulationResult result = Simulation.run(settings, RequestShape.CHAT,
                new FixedWorkload("both-drivers", conversations), LoadAwareAffinityPolicy.NAME, recorder::watch);
        assertThat(result.errors()).isZero();
        return recorder.events;
    }

    private static List<String> throughTheGateway() throws Exception {
        Vertx vertx = Vertx.vertx();
        SimEngineOptions defaults = SimEngineOptions.defaults();
        SimEngineOptions options = new SimEngineOptions(defaults.host(), 0, defaults.modelName(), defaults.timeScale(),
                ENGINE, defaults.faults(), null);
        List<SimEngineServer> engines = List.of(SimEngineServer.start(vertx, options),
                SimEngineServer.start(vertx, options));
        List<String> urls = engines.stream().map(SimEngineServer::url).toList();
        Recorder recorder = new Recorder(urls);
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
             Gateway gateway = Gateway.start(new GatewayConfig(Config.defaults(Scope.GATEWAY)
                     .with(Settings.HOST, "127.0.0.1").with(Settings.PORT, 0).with(Settings.PROMETHEUS_PORT, -1)
                     .with(Settings.POLICY, LoadAwareAffinityPolicy.NAME).with(Settings.DISABLE_HEALTH_CHECK, true)
                     .with(Settings.SHUTDOWN_GRACE_PERIOD_SECS, 1L)))) {
            gateway.registry().policySource(() -> recorder.watch(
                    PolicyFactory.create(LoadAwareAffinityPolicy.NAME, POLICY, System::nanoTime)));
            // One after the other, so the model's pool lists them in this order, as the simulator does.
            for (String url : urls) {
                gateway.addWorker(WorkerSpec.of(url, null)).activated().toCompletionStage().toCompletableFuture()
                        .get(10, TimeUnit.SECONDS);
            }
            for (int i = 0; i < PROMPTS.size(); i++) {
                if (i != PAIR) {
                    assertThat(post(client, gateway, PROMPTS.get(i)).statusCode()).isEqualTo(200);
                } else {
                    CompletableFuture<HttpResponse<String>> first = postAsync(client, gateway, PROMPTS.get(i));
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                            .until(() -> gateway.registry().workers().stream().mapToInt(Worker::inFlight).sum() == 1);
                    assertThat(post(client, gateway, PROMPTS.get(++i)).statusCode()).isEqualTo(200);
                    assertThat(first.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                }
                // The gateway tells the policy of a completion in the loop turn after the answer's last write, so a
                // client whose next request goes out on another connection (another event loop) can be routed
                // before it; the simulator's requests come seconds apart. Wait for the policy to have heard.
                int answered = i + 1;
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                        .until(() -> recorder.events.stream().filter(e -> e.startsWith("completed ")).count()
                                == answered);
            }
        } finally {
            engines.forEach(SimEngineServer::close);
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        return recorder.events;
    }

    private static HttpResponse<String> post(HttpClient client, Gateway gateway, String prompt) throws Exception {
        return postAsync(client, gateway, prompt).get(30, TimeUnit.SECONDS);
    }

    private static CompletableFuture<HttpResponse<String>> postAsync(HttpClient client, Gateway gateway,
                                                                     String prompt) {
        String body = JsonMapper.shared().writeValueAsString(Map.of("max_tokens", 1,
                "messages", List.of(Map.of("role", "user", "content", prompt))));
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.port()
                        + "/v1/chat/completions")).timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }
}
