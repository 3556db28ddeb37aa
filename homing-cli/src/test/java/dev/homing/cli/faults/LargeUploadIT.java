package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fault 7 of the suite: large uploads at once to a gateway with a 512 MiB heap, so 128 MiB of body memory by
 * default. Four clients upload 200 MB each: the two that declare it are refused with 413 before the body is read,
 * the two that send it chunked as soon as it could not fit. Then four upload 100 MB each, a JSON object with a stray
 * byte after it: one at a time is read whole (and refused with 400, so no worker is involved), the others get 503
 * with Retry-After and come back. No client waits past its timeout, and the heap holds.
 */
class LargeUploadIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final long MB = 1_000_000;
    /** Retries of a client refused for memory: four bodies read one by one need three at most, under load more. */
    private static final int MAX_ATTEMPTS = 40;

    private final ProcessFleet fleet = new ProcessFleet("large-upload");
    private final ExecutorService clients = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopProcesses() {
        clients.shutdownNow();
        fleet.close();
    }

    @Test
    void uploadsBeyondTheBodyMemoryAreRefusedAndTheRestReadOneAtATimeWithinTheHeap() throws IOException {
        EngineProcess engine = fleet.engine("engine", ProcessFleet.ENGINE_JVM, "--time-scale", "20");
        GatewayProcess gateway = fleet.gateway("512m", List.of(engine));
        fleet.awaitReady(gateway, 1);
        URI url = URI.create(gateway.url());

        List<Answer> answers = new ArrayList<>();
        try (MemorySampler heap = new MemorySampler(gateway, fleet.control())) {
            List<CompletableFuture<Upload.Result>> large = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                boolean chunked = i % 2 == 1;
                String id = "large-" + i + (chunked ? "-chunked" : "");
                large.add(CompletableFuture.supplyAsync(() -> Upload.send(url.getHost(), url.getPort(),
                        Requests.COMPLETIONS, id, "nobody", 200 * MB, chunked, true, TIMEOUT), clients));
            }
            for (CompletableFuture<Upload.Result> upload : large) {
                Upload.Result result = upload.join();
                answers.add(result.answer());
                assertThat(result.answer().status()).as(result.answer().requestId()).isIn(413, 503);
                assertThat(result.answer().outcome()).isEqualTo(Answer.Outcome.FAILED_CLEARLY);
                assertThat(result.bytesSent()).as("the rest of the body was never read").isLessThan(200 * MB);
            }

            List<CompletableFuture<List<Answer>>> medium = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                String id = "medium-" + i;
                medium.add(CompletableFuture.supplyAsync(() -> uploadUntilRead(url, id), clients));
            }
            for (CompletableFuture<List<Answer>> client : medium) {
                List<Answer> attempts = client.join();
                answers.addAll(attempts);
                assertThat(attempts.getLast().status()).as("read whole, then refused as no JSON object").isEqualTo(400);
                assertThat(attempts.getLast().body()).contains("malformed JSON");
                assertThat(attempts.subList(0, attempts.size() - 1)).allSatisfy(refused -> {
                    assertThat(refused.status()).isEqualTo(503);
                    assertThat(refused.body()).contains("body_memory_full");
                    assertThat(refused.retryAfter()).isEqualTo("1");
                });
            }
            Answer after = fleet.control().post(gateway.url() + Requests.CHAT, "after", Requests.chat("after", 4,
                    false), false);
            answers.add(after);
            assertThat(after.outcome()).as("the gateway still serves").isEqualTo(Answer.Outcome.SUCCEEDED);
            fleet.awaitOutcome("every body given back", TIMEOUT).until(() -> gateway.metrics(fleet.control())
                    .sum("homing_body_memory_bytes") == 0);
            assertThat(Files.readString(gateway.process().log())).doesNotContain("OutOfMemoryError");

            long peakHeap = heap.heapPeakBytes();
            long peakResident = gateway.process().peakResidentBytes();
            FaultFigures.record(new FaultFigures.Row("7", "4 uploads of 200 MB at once (2 declared, 2 chunked), "
                    + "then 4 of 100 MB (read one at a time, the others told to retry); gateway -Xmx512m, 128 MiB of "
                    + "body memory, peak resident " + peakResident / (1 << 20) + " MiB", answers, 0,
                    peakHeap / (1 << 20) + " MiB"));
        }
    }

    /** Uploads 100 MB until the gateway reads it (any answer but a 503), waiting as Retry-After says between tries. */
    private static List<Answer> uploadUntilRead(URI url, String id) {
        List<Answer> attempts = new ArrayList<>();
        for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
            Answer answer = Upload.send(url.getHost(), url.getPort(), Requests.COMPLETIONS, id + "-" + attempt,
                    "nobody", 100 * MB, false, false, TIMEOUT).answer();
            attempts.add(answer);
            if (answer.status() != 503 || answer.retryAfter() == null) {
                return attempts;
            }
            try {
                // A client honouring Retry-After: the wait is the client's behaviour under test, not a test's sleep.
                TimeUnit.SECONDS.sleep(Long.parseLong(answer.retryAfter()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return attempts;
            }
        }
        return attempts;
    }
}
