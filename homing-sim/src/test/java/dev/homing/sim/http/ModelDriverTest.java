package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.sim.model.VirtualTimeModel;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The driver shares its event loop: a backlog of events is delivered in turns, never in one long task. */
class ModelDriverTest {
    private static final int EVENTS = 1_000;
    /** What delivering one event costs here (a stand-in for rendering and writing it): all of them, ten turns. */
    private static final long EVENT_COST_NANOS = ModelDriver.TURN_NANOS * 10 / EVENTS;

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() {
        vertx.close().await();
    }

    @Test
    void aBacklogLongerThanATurnLetsTheEventLoopServeOtherWorkBeforeItIsAllDelivered() throws Exception {
        Context loop = vertx.getOrCreateContext();
        List<Integer> delivered = new CopyOnWriteArrayList<>();
        CompletableFuture<Integer> deliveredWhenOtherWorkRan = new CompletableFuture<>();
        loop.runOnContext(v -> {
            ModelDriver<Backlog, Integer> driver = new ModelDriver<>(vertx, new Backlog(), 1, System.nanoTime(),
                event -> {
                    spend(EVENT_COST_NANOS);
                    delivered.add(event);
                }, event -> event, event -> false);
            loop.runOnContext(other -> deliveredWhenOtherWorkRan.complete(delivered.size()));
            driver.pump();
        });

        assertThat(deliveredWhenOtherWorkRan.get(30, TimeUnit.SECONDS)).as("events delivered before the other work")
            .isLessThan(EVENTS);
        await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == EVENTS);
        assertThat(delivered).as("every event, in order").containsExactlyElementsOf(
            IntStream.range(0, EVENTS).boxed().toList());
    }

    /** Busy for {@code nanos}, as real work would be. */
    private static void spend(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** A model that reports every one of its events at once, at its first step. */
    private static final class Backlog implements VirtualTimeModel<Integer> {
        private boolean reported;

        @Override
        public List<Integer> advanceTo(long atNanos) {
            if (reported) {
                return List.of();
            }
            reported = true;
            return IntStream.range(0, EVENTS).boxed().toList();
        }

        @Override
        public long nextEventNanos() {
            return reported ? Long.MAX_VALUE : 0;
        }
    }
}
