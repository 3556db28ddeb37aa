package dev.homing.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RequestTimeoutsTest {

    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final Vertx vertx = Vertx.vertx();
    private final RequestTimeouts timeouts = new RequestTimeouts(vertx, TIMEOUT);
    private final Context loop = vertx.getOrCreateContext();
    private final List<String> fired = new CopyOnWriteArrayList<>();
    private final Map<String, Long> firedAfterNanos = new ConcurrentHashMap<>();

    @AfterEach
    void close() {
        vertx.close().await();
    }

    @Test
    void timeoutsFireInTheOrderTheyStartedAndACancelledOneNever() {
        Map<String, RequestTimeouts.Timeout> started = new ConcurrentHashMap<>();
        onLoop(() -> {
            for (String name : List.of("a", "b", "c", "d")) {
                started.put(name, start(name));
            }
            started.get("b").cancel();
            started.get("b").cancel();
        });

        await().atMost(PATIENCE).until(() -> fired.size() == 3);
        // "d" fires after "b" would have: "b" had its chance and was cancelled.
        assertThat(fired).containsExactly("a", "c", "d");
        assertThat(firedAfterNanos.values()).allSatisfy(nanos -> assertThat(nanos).isGreaterThanOrEqualTo(
                TIMEOUT.toNanos()));
    }

    @Test
    void aTimeoutStartedAfterTheHeadEndedStillFiresWhenTheEarlierTimerComesEarly() throws Exception {
        onLoop(() -> start("first").cancel());
        // Started once the timer set for "first" is pending: that timer comes early for "second" and is set again.
        CountDownLatch later = new CountDownLatch(1);
        vertx.setTimer(TIMEOUT.toMillis() / 2, id -> {
            loop.runOnContext(x -> start("second"));
            later.countDown();
        });
        assertThat(later.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        await().atMost(PATIENCE).until(() -> fired.contains("second"));
        assertThat(fired).containsExactly("second");
        assertThat(firedAfterNanos.get("second")).isGreaterThanOrEqualTo(TIMEOUT.toNanos());
    }

    @Test
    void aTimeoutCancelledOnTimeNeverFiresAndTheLoopKeepsTiming() {
        onLoop(() -> {
            start("kept");
            start("ended").cancel();
        });
        await().atMost(PATIENCE).until(() -> fired.contains("kept"));
        onLoop(() -> start("after"));

        await().atMost(PATIENCE).until(() -> fired.contains("after"));
        assertThat(fired).containsExactly("kept", "after");
    }

    /** Starts a timeout on the loop that records its name and how long after its start it fired, on its context. */
    private RequestTimeouts.Timeout start(String name) {
        long startNanos = System.nanoTime();
        return timeouts.start(loop, () -> {
            assertThat(Vertx.currentContext()).isSameAs(loop);
            firedAfterNanos.put(name, System.nanoTime() - startNanos);
            fired.add(name);
        });
    }

    private void onLoop(Runnable action) {
        CountDownLatch done = new CountDownLatch(1);
        loop.runOnContext(v -> {
            action.run();
            done.countDown();
        });
        try {
            assertThat(done.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
