package dev.homing.gateway.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** --log-level, --log-dir and --log-json applied to Logback; with --log-json every line one flat JSON object. */
class LogSetupTest {

    /** Refuses a name twice in one object: a forged field would show as one. */
    private static final ObjectMapper STRICT = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();
    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @AfterEach
    void restoreTheTestConfiguration() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    @Test
    void aLogDirectoryGetsAFileOfJsonLinesWhenAsked(@TempDir Path dir) throws Exception {
        LogSetup.apply(new GatewayConfig(Config.defaults(Scope.GATEWAY).with(Settings.LOG_DIR, dir.toString())
                .with(Settings.LOG_JSON, true).with(Settings.LOG_LEVEL, "warn")));

        LoggerFactory.getLogger("homing.test").warn("disk {} is {}", "d1", "full");

        String written = Files.readString(dir.resolve("homing.log"));
        assertThat(written).startsWith("{").contains("\"message\":\"disk d1 is full\"");
    }

    @Test
    void quietDropsWhatTheGroupsThreadsLogUntilClosedWhileOtherThreadsLogAsUsual(@TempDir Path dir) throws Exception {
        LogSetup.apply(new GatewayConfig(Config.defaults(Scope.GATEWAY).with(Settings.LOG_DIR, dir.toString())
                .with(Settings.LOG_LEVEL, "info")));
        org.slf4j.Logger access = LoggerFactory.getLogger("dev.homing.gateway.access");
        ThreadGroup warmup = new ThreadGroup("warm-up");

        try (LogSetup.Quiet quiet = LogSetup.quiet(warmup)) {
            runIn(warmup, () -> {
                access.info("held back");
                // A thread started by one of the group's threads is in the group too.
                runIn(Thread.currentThread().getThreadGroup(), () -> access.error("held back too"));
            });
            access.info("a line of the real gateway");
        }
        runIn(warmup, () -> access.info("shown again"));

        assertThat(Files.readAllLines(dir.resolve("homing.log")))
                .noneMatch(line -> line.contains("held back"))
                .anyMatch(line -> line.contains("a line of the real gateway"))
                .anyMatch(line -> line.contains("shown again"));
    }

    private static void runIn(ThreadGroup group, Runnable work) {
        Thread thread = new Thread(group, work);
        thread.start();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Test
    void whatALibraryLogsThroughJavaUtilLoggingComesOutAsTheGatewaysOwnLines(@TempDir Path dir) throws Exception {
        LogSetup.apply(new GatewayConfig(Config.defaults(Scope.GATEWAY).with(Settings.LOG_DIR, dir.toString())
                .with(Settings.LOG_JSON, true)));

        java.util.logging.Logger.getLogger("io.opentelemetry.exporter").warning("Failed to export spans");
        java.util.logging.Logger.getLogger("io.opentelemetry.exporter").fine("below the gateway's level");

        List<JsonNode> lines = Files.readAllLines(dir.resolve("homing.log")).stream().map(STRICT::readTree).toList();
        assertThat(lines).singleElement().satisfies(line -> {
            assertThat(line.get("level").asString()).isEqualTo("WARN");
            assertThat(line.get("logger").asString()).isEqualTo("io.opentelemetry.exporter");
            assertThat(line.get("message").asString()).isEqualTo("Failed to export spans");
        });
    }

    @Test
    void theAccessLogIsOneJsonObjectALineWithItsFieldsTypedAndAForgedRequestIdStaysOneValue(@TempDir Path dir)
            throws Exception {
        // A header holds no line break; quotes, braces and backslashes it may.
        String forged = "x\",\"status\":999,\"worker\":\"http://evil\"} {\"level\":\"ERROR \\";
        try (FakeWorker worker = FakeWorker.start("m")) {
            var config = RunningGateway.config(List.of(worker)).with(Settings.POLICY, "round_robin")
                    .with(Settings.LOG_JSON, true).with(Settings.LOG_DIR, dir.toString());
            LogSetup.apply(new GatewayConfig(config));
            try (RunningGateway gateway = RunningGateway.start(config)) {
                assertThat(gateway.post("/v1/chat/completions", CHAT, "x-request-id", forged).statusCode())
                        .isEqualTo(200);
                assertThat(gateway.post("/v1/chat/completions", "{not json", "x-request-id", "bad-1").statusCode())
                        .isEqualTo(400);
                await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> accessLines(dir).size() == 2);
            }

            // By request id: the answered request's line is written just after its answer, so it may come second.
            List<JsonNode> access = accessLines(dir);
            JsonNode answered = lineOf(access, forged);
            assertThat(answered.get("request_id").asString()).isEqualTo(forged);
            assertThat(answered.get("route").asString()).isEqualTo("/v1/chat/completions");
            assertThat(answered.get("method").asString()).isEqualTo("POST");
            assertThat(answered.get("model").asString()).isEqualTo("m");
            assertThat(answered.get("worker").asString()).isEqualTo(worker.url());
            assertThat(answered.get("branch").asString()).isNotBlank();
            assertThat(answered.get("status").isInt()).isTrue();
            assertThat(answered.get("status").asInt()).isEqualTo(200);
            assertThat(answered.get("total_ms").isNumber()).isTrue();
            assertThat(answered.get("level").asString()).isEqualTo("INFO");
            assertThat(answered.get("message").asString()).contains("route=/v1/chat/completions");
            assertThat(answered.has("error")).isFalse();

            JsonNode refused = lineOf(access, "bad-1");
            assertThat(refused.get("request_id").asString()).isEqualTo("bad-1");
            assertThat(refused.get("status").asInt()).isEqualTo(400);
            assertThat(refused.get("error").asString()).isNotBlank();
            assertThat(refused.has("ttfb_ms")).as("no worker answered").isFalse();
        }
    }

    /** The one access-log line of {@code requestId}. */
    private static JsonNode lineOf(List<JsonNode> access, String requestId) {
        List<JsonNode> lines = access.stream().filter(line -> line.get("request_id").asString().equals(requestId))
                .toList();
        assertThat(lines).as("access-log lines of %s in %s", requestId, access).hasSize(1);
        return lines.getFirst();
    }

    /** Every line of the log file, each read as one JSON object; those of the access log, in order. */
    private static List<JsonNode> accessLines(Path dir) throws Exception {
        List<String> lines = Files.readAllLines(dir.resolve("homing.log"));
        List<JsonNode> objects = lines.stream().map(STRICT::readTree).toList();
        assertThat(objects).allSatisfy(line -> assertThat(line.isObject()).isTrue());
        return objects.stream().filter(line -> line.get("logger").asString().equals("dev.homing.gateway.access"))
                .filter(line -> line.get("route").asString().equals("/v1/chat/completions")).toList();
    }
}
