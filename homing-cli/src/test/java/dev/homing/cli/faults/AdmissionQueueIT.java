package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 5 of the suite: one request at a time, two may wait four seconds. Requests beyond the queue are refused with
 * 429 at once, waiters that wait too long get 503 in the order they came (backpressure, not a 408 that clients
 * retry at once), each with {@code Retry-After} and a code of its own.
 */
class AdmissionQueueIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("admission-queue");
    /** One thread per request of the test, so no request waits for a thread. */
    private final ExecutorService clients = Executors.newFixedThreadPool(6);
    private final List<String> answeredInOrder = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopClients() {
        clients.shutdownNow();
    }

    @Test
    void requestsBeyondTheQueueGet429AtOnceAndOverdueWaitersGet503InArrivalOrder() {
        // Real time: the 1,500-token request that holds the one permit runs for some twelve seconds (longer on a busy
        // machine, never shorter), well past the waiters' deadlines; four seconds of queue timeout leave the refused
        // requests time to arrive while both waiters still wait, with both cores busy.
        EngineProcess engine = fleet.engine("slow-engine", ProcessFleet.ENGINE_JVM, "--time-scale", "1");
        GatewayProcess gateway = fleet.gateway("512m", List.of(engine), "--max-concurrent-requests", "1",
                "--queue-size", "2", "--queue-timeout-secs", "4");
        fleet.awaitReady(gateway, 1);
        String url = gateway.url() + Requests.CHAT;

        try (FaultClient client = new FaultClient(TIMEOUT)) {
            CompletableFuture<Answer> holder = send(client, url, "holder", 1_500);
            awaitAdmissions(gateway, "allowed", 1);
            CompletableFuture<Answer> firstWaiter = send(client, url, "waiter-1", 8);
            awaitAdmissions(gateway, "queued", 1);
            CompletableFuture<Answer> secondWaiter = send(client, url, "waiter-2", 8);
            awaitAdmissions(gateway, "queued", 2);
            Answer refused1 = send(client, url, "refused-1", 8).join();
            Answer refused2 = send(client, url, "refused-2", 8).join();
            List<Answer> answers = List.of(holder.join(), firstWaiter.join(), secondWaiter.join(), refused1,
                    refused2, send(client, url, "after", 8).join());

            assertThat(refused1.status()).isEqualTo(429);
            assertThat(refused2.status()).isEqualTo(429);
            assertThat(List.of(firstWaiter.join(), secondWaiter.join())).as("overdue waiters")
                    .allMatch(a -> a.status() == 503 && a.body().contains("\"queue_timeout\""));
            assertThat(List.of(refused1, refused2, firstWaiter.join(), secondWaiter.join()))
                    .allMatch(a -> a.outcome() == Answer.Outcome.FAILED_CLEARLY && a.retryAfter() != null);
            assertThat(holder.join().outcome()).isEqualTo(Answer.Outcome.SUCCEEDED);
            assertThat(answeredInOrder).containsExactly("refused-1", "refused-2", "waiter-1", "waiter-2", "holder",
                    "after");
            assertThat(answers.getLast().outcome()).as("the permit came back").isEqualTo(Answer.Outcome.SUCCEEDED);
            assertThat(engine.answeredIds()).as("refused requests never reach the engine")
                    .containsExactly("holder", "after");
            FaultFigures.record(new FaultFigures.Row("5", "Queue full and queue timeout (1 running, 2 waiting, "
                    + "4 s)", answers, AnsweredIds.of(List.of(engine)).duplicated().size(), null));
        }
    }

    private CompletableFuture<Answer> send(FaultClient client, String url, String requestId, int maxTokens) {
        return CompletableFuture.supplyAsync(() -> {
            Answer answer = client.post(url, requestId, Requests.chat(requestId, maxTokens, false), false);
            answeredInOrder.add(requestId);
            return answer;
        }, clients);
    }

    /** Waits until {@code smg_http_rate_limit_total{result}} reaches {@code count}: a request got that far. */
    private void awaitAdmissions(GatewayProcess gateway, String result, int count) {
        fleet.awaitOutcome(result + " " + count, TIMEOUT)
                .until(() -> gateway.metrics(fleet.control()).sum("smg_http_rate_limit_total", "result", result)
                        == count);
    }
}
