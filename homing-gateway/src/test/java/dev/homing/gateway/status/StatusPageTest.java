package dev.homing.gateway.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The status page as an operator's browser shows it: four simulated engines publishing their KV events behind a
 * gateway under a bounded chat load, {@code /status} rendered by headless Chromium (Debian's {@code chromium}) into
 * a screenshot under {@code target/status-page/} and a DOM the test reads. Skipped when chromium is not installed.
 */
class StatusPageTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final int ENGINES = 4;
    /** Concurrent clients: enough that the engines have requests in flight when the page is taken. */
    private static final int CLIENTS = 12;
    /** Bounds on the load, whatever happens: requests and seconds. */
    private static final int MAX_REQUESTS = 50_000;
    private static final Duration MAX_LOAD = Duration.ofSeconds(120);
    private static final Path OUTPUT = Path.of("target", "status-page");
    private static final String EXACT_BADGE = "<span class=\"badge good\">exact</span>";

    @Test
    void theStatusPageShowsEachWorkerOfAFleetUnderLoadWithItsStateViewAndHitRateChart() throws Exception {
        String chromium = chromium();
        assumeTrue(chromium != null, "Debian's chromium is not installed (apt-get install -y chromium): "
                + "the status page is not rendered");
        List<SimEngineServer> engines = new ArrayList<>();
        for (int i = 0; i < ENGINES; i++) {
            engines.add(engine());
        }
        Config config = RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, engines.stream().map(SimEngineServer::url).toList())
                .with(Settings.POLICY, "cache_aware").with(Settings.TOKENIZER_PATH, "demo");
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        AtomicBoolean stop = new AtomicBoolean();
        try (RunningGateway gateway = RunningGateway.start(config)) {
            String status = "http://127.0.0.1:" + gateway.gateway().metricsPort() + "/status";
            AtomicInteger sent = new AtomicInteger();
            long deadline = System.nanoTime() + MAX_LOAD.toNanos();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.execute(() -> load(gateway, client, sent, stop, deadline));
            }
            // Two samples after the start, the charts have points of their own and the engines have reported usage.
            await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
                String json = get(status + "?format=json");
                assertThat(chartReady(json)).as(json).isTrue();
            });

            Files.createDirectories(OUTPUT);
            Path screenshot = OUTPUT.resolve("status.png").toAbsolutePath();
            Files.deleteIfExists(screenshot);
            // A worker's view turns approximate for a while when a busy gateway hears its engine's events later than
            // the silence limit, so any one page may catch every worker so: take pages until one shows a worker on the
            // exact view. Each is kept, so a failure leaves the last one to look at.
            AtomicReference<String> page = new AtomicReference<>();
            await().atMost(Duration.ofSeconds(180)).until(() -> {
                page.set(chromium(chromium, "--dump-dom", status));
                Files.writeString(OUTPUT.resolve("status.html"), page.get());
                return page.get().contains(EXACT_BADGE);
            });
            String dom = page.get();
            chromium(chromium, "--screenshot=" + screenshot, status);
            stop.set(true);

            assertThat(screenshot).exists();
            assertThat(Files.size(screenshot)).isGreaterThan(10_000);
            assertThat(count(dom, "<tr class=\"worker\"")).as("one row a worker").isEqualTo(ENGINES);
            for (SimEngineServer engine : engines) {
                String row = row(dom, engine.url());
                assertThat(row).contains("class=\"state\"><span class=\"badge good\">active</span>")
                        .contains("class=\"circuit\"><span class=\"badge good\">closed</span>")
                        .containsPattern("class=\"view\"><span class=\"badge \\w+\">(exact|approximate)</span>")
                        .contains("<svg class=\"chart\"");
            }
            assertThat(dom).as("a worker on the exact view").contains(EXACT_BADGE);
            assertThat(dom).contains("<svg class=\"chart\" id=\"fleet-chart\"")
                    .containsPattern("<g class=\"realised\"><polyline [^>]*points=\"[0-9.]+,[0-9.]+ [0-9.]+,")
                    .containsPattern("<g class=\"predicted\"><polyline [^>]*points=\"[0-9.]+,[0-9.]+ [0-9.]+,");
            assertThat(dom).contains("id=\"replica\"").contains("id=\"discovery\"");
        } finally {
            stop.set(true);
            clients.shutdown();
            assertThat(clients.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            engines.forEach(SimEngineServer::close);
        }
    }

    @Test
    void theStatusPageIsOpenWithoutAKeyLikeMetricsAndBehindTheAdminKeyWhenOneIsSet() throws Exception {
        Config open = RunningGateway.config(List.of()).with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, false);
        try (RunningGateway gateway = RunningGateway.start(open)) {
            String status = "http://127.0.0.1:" + gateway.gateway().metricsPort() + "/status";
            assertThat(send(HttpRequest.newBuilder(URI.create(status)).build()).statusCode()).isEqualTo(200);
        }
        try (RunningGateway gateway = RunningGateway.start(open.with(Settings.ADMIN_API_KEY, "admin-secret"))) {
            String status = "http://127.0.0.1:" + gateway.gateway().metricsPort() + "/status";
            HttpResponse<String> without = send(HttpRequest.newBuilder(URI.create(status)).build());
            HttpResponse<String> with = send(HttpRequest.newBuilder(URI.create(status + "?format=json"))
                    .header("authorization", "Bearer admin-secret").build());
            assertThat(without.statusCode()).isEqualTo(401);
            assertThat(JSON.readTree(without.body()).path("error").path("code").asString())
                    .isEqualTo("invalid_admin_key");
            assertThat(with.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(with.body()).path("workers").isArray()).isTrue();
        }
    }

    /** An engine publishing its KV events, tokenizing as the gateway does: workers the exact view can judge. */
    private static SimEngineServer engine() {
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(SimEngines.config()
                .with(Settings.TIME_SCALE, 2.0).with(Settings.TOKENIZER_PATH, "demo")
                .with(Settings.ENGINE_KV_EVENTS_CONFIG,
                        "{\"publisher\":\"zmq\",\"endpoint\":\"tcp://127.0.0.1:*\",\"topic\":\"kv-events\"}")));
    }

    /** One client's conversations: each turn repeats the conversation so far, so the engines have prefixes to hit. */
    private static void load(RunningGateway gateway, int client, AtomicInteger sent, AtomicBoolean stop,
                             long deadline) {
        for (int turn = 0; !stop.get() && System.nanoTime() < deadline && sent.incrementAndGet() <= MAX_REQUESTS;
             turn++) {
            int conversation = (client * 7 + turn / 6) % 16;
            StringBuilder question = new StringBuilder();
            for (int t = 0; t <= turn % 6; t++) {
                question.append("Question ").append(t).append(" of conversation ").append(conversation)
                        .append(": what changed in how ships found their longitude? ");
            }
            String body = JSON.createObjectNode().put("model", "sim-model").put("max_tokens", 48)
                    .set("messages", JSON.createArrayNode()
                            .add(JSON.createObjectNode().put("role", "system").put("content",
                                    ("Conversation " + conversation + " is about maritime navigation. ").repeat(20)))
                            .add(JSON.createObjectNode().put("role", "user").put("content", question.toString())))
                    .toString();
            gateway.post("/v1/chat/completions", body);
        }
    }

    /** Every worker and the fleet have realised rates, and the fleet's chart has at least three points of them. */
    private static boolean chartReady(String json) {
        JsonNode report = JSON.readTree(json);
        int points = 0;
        for (JsonNode point : report.path("fleet").path("history")) {
            points += point.path("realised").isNumber() ? 1 : 0;
        }
        boolean everyWorker = report.path("workers").size() == ENGINES;
        for (JsonNode worker : report.path("workers")) {
            everyWorker &= worker.path("hitRate").path("realised").isNumber();
        }
        return points >= 3 && everyWorker;
    }

    private static String get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).build()).body();
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Debian's chromium on the PATH, or null. */
    private static String chromium() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path candidate = Path.of(dir, "chromium");
            if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        return null;
    }

    /** Runs headless Chromium once on {@code url} with {@code action}; its standard output. */
    private static String chromium(String binary, String action, String url) throws Exception {
        Path profile = Files.createTempDirectory("status-page-profile");
        Path out = Files.createTempFile("status-page", ".out");
        Process process = new ProcessBuilder(binary, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile, "--window-size=1280,900", action, url)
                .redirectErrorStream(false).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(out);
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    /** The table row of {@code url}. */
    private static String row(String dom, String url) {
        Matcher row = Pattern.compile("<tr class=\"worker\" data-url=\"" + Pattern.quote(url) + "\">.*?</tr>",
                Pattern.DOTALL).matcher(dom);
        assertThat(row.find()).as("a row for " + url).isTrue();
        return row.group();
    }
}
