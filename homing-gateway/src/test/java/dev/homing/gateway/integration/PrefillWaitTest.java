package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Settings;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * load_aware_affinity holds a request whose prefix an earlier request is still computing on the same worker until
 * that prefill is done, and the gateway honours the hold. Two workers: the second request follows the first to its
 * worker rather than to the idle one.
 */
class PrefillWaitTest {

    private static final Pattern CACHED = Pattern.compile("\"cached_tokens\":(\\d+)");
    private static final Pattern PROMPT = Pattern.compile("\"prompt_tokens\":(\\d+)");

    /** About 2,000 tokens of the simulated tokenizer (4 characters a token). */
    private static final String LONG_PROMPT = longPrompt();

    private static String longPrompt() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 8_000; i++) {
            text.append("Clause ").append(i).append(" of the shared contract the two requests discuss. ");
        }
        return text.toString();
    }

    /** A completion with no model named: each test's gateway serves one. */
    private static String completion(String prompt) {
        return "{\"prompt\":\"" + prompt + "\",\"max_tokens\":2}";
    }

    @Test
    void aRequestRelyingOnAPrefixStillBeingPrefilledWaitsForItAndFindsItCached() throws Exception {
        // Slow, chunked prefill: the first request's 2,000 tokens take two steps of about three seconds. Sent at
        // once, the second would join the first's last step and find only the first chunk (1,024 tokens) cached.
        // Six seconds for the test to send the second request in, which a busy machine's pauses do not use up; the
        // wait allowed is far longer, so that only the first request's token can end it.
        SimEngineOptions options = SimEngines.options(SimEngines.config().with(Settings.TIME_SCALE, 1.0)
                .with(Settings.CHUNKED_PREFILL_SIZE, 1_024).with(Settings.PREFILL_TOKENS_PER_SECOND, 350.0));
        List<SimEngineServer> engines = List.of(SimEngineServer.start(TestVertx.get(), options),
                SimEngineServer.start(TestVertx.get(), options));
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, engines.stream().map(SimEngineServer::url).toList())
                .with(Settings.POLICY, LoadAwareAffinityPolicy.NAME)
                .with(Settings.AFFINITY_PREFILL_WAIT_MS, 60_000L))) {
            CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                    () -> gateway.post("/v1/completions", completion(LONG_PROMPT)));
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 1);

            HttpResponse<String> second = gateway.post("/v1/completions",
                    completion(LONG_PROMPT + "And what does the last clause say?"));

            assertThat(second.statusCode()).isEqualTo(200);
            HttpResponse<String> firstAnswer = first.get(30, TimeUnit.SECONDS);
            assertThat(firstAnswer.statusCode()).isEqualTo(200);
            assertThat(number(CACHED, second.body())).isGreaterThan(number(PROMPT, firstAnswer.body()) * 9 / 10);
            assertThat(gateway.scrapeMetrics())
                    .contains("homing_prefill_waits_total{model=\"sim-model\",outcome=\"released\"} 1.0")
                    .contains("homing_prefill_wait_seconds_count{model=\"sim-model\"} 1");
        } finally {
            engines.forEach(SimEngineServer::close);
        }
    }

    @Test
    void aHeldRequestWhoseClientLeavesIsNeverSentAndGivesItsSlotBack() throws IOException {
        // A wait far longer than the test: the held request may only end by its client leaving.
        try (HangingWorkers workers = HangingWorkers.behindAGateway(600_000)) {
            RunningGateway gateway = workers.gateway();
            try (Socket firstClient = workers.openFirstRequest()) {
                try (Socket heldClient = gateway.openPost("/v1/completions", completion(LONG_PROMPT + "A follow-up."))) {
                    // Its slot is taken, and nothing reached a worker: it is held.
                    await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 2);
                    assertThat(workers.received()).isEqualTo(1);
                }

                await().atMost(Duration.ofSeconds(30)).until(() -> gateway.inFlight() == 1);
                assertThat(gateway.scrapeMetrics())
                        .contains("homing_prefill_waits_total{model=\"m\",outcome=\"client_gone\"} 1.0");
            }
            // The first request ends (its client left): the prefill the held one waited for is done, and the held
            // one must still not be sent.
            gateway.awaitNothingInFlight();
            assertThat(workers.received()).isEqualTo(1);
            assertThat(gateway.scrapeMetrics()).doesNotContain("outcome=\"released\"");
        }
    }

    @Test
    void aHeldRequestIsSentWhenItsWaitRunsOut() throws IOException {
        try (HangingWorkers workers = HangingWorkers.behindAGateway(200);
             Socket neverAnswered = workers.openFirstRequest()) {
            workers.a().behaviour(FakeWorker.Behaviour.NORMAL);
            workers.b().behaviour(FakeWorker.Behaviour.NORMAL);

            HttpResponse<String> held = workers.gateway().post("/v1/completions",
                    completion(LONG_PROMPT + "A follow-up."));

            assertThat(held.statusCode()).isEqualTo(200);
            assertThat(workers.received()).isEqualTo(2);
            String metrics = workers.gateway().scrapeMetrics();
            assertThat(metrics).contains("homing_prefill_waits_total{model=\"m\",outcome=\"timed_out\"} 1.0")
                    .doesNotContain("outcome=\"released\"");
            assertThat(heldSeconds(metrics)).isGreaterThanOrEqualTo(0.2);
        }
    }

    /** Two workers that answer nothing, behind a gateway that waits up to a given time for a prefill. */
    private record HangingWorkers(FakeWorker a, FakeWorker b, RunningGateway gateway) implements AutoCloseable {

        static HangingWorkers behindAGateway(long waitMillis) {
            FakeWorker a = FakeWorker.start("m");
            FakeWorker b = FakeWorker.start("m");
            RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(a, b))
                    .with(Settings.POLICY, LoadAwareAffinityPolicy.NAME)
                    .with(Settings.AFFINITY_PREFILL_WAIT_MS, waitMillis));
            a.behaviour(FakeWorker.Behaviour.HANG);
            b.behaviour(FakeWorker.Behaviour.HANG);
            return new HangingWorkers(a, b, gateway);
        }

        /** Sends the long prompt and waits until a worker has it (and answers nothing). */
        Socket openFirstRequest() throws IOException {
            Socket client = gateway.openPost("/v1/completions", completion(LONG_PROMPT));
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> received() == 1);
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
            return client;
        }

        int received() {
            return a.received().size() + b.received().size();
        }

        @Override
        public void close() {
            try {
                gateway.close();
            } finally {
                a.close();
                b.close();
            }
        }
    }

    private static long number(Pattern pattern, String body) {
        Matcher m = pattern.matcher(body);
        assertThat(m.find()).as("%s in %s", pattern, body).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static double heldSeconds(String metrics) {
        Matcher m = Pattern.compile("homing_prefill_wait_seconds_sum\\{model=\"m\"} (\\S+)").matcher(metrics);
        assertThat(m.find()).isTrue();
        return Double.parseDouble(m.group(1));
    }
}
