package dev.homing.gateway.cli;

import io.vertx.core.Vertx;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class ProxyWarmupTest {

    /** Time enough for a round on a busy machine: the rounds below end on their count of requests, not on time. */
    private static final Duration AMPLE = Duration.ofMinutes(2);
    private static final int REQUESTS_PER_ROUND = 300;

    @Test
    void aWarmupDrivesRequestsThroughTwoThrowawayGatewaysOneAfterTheOther() {
        ProxyWarmup.Outcome outcome = ProxyWarmup.run("round_robin", true, "auto", AMPLE, REQUESTS_PER_ROUND);

        for (ProxyWarmup.Round round : List.of(outcome.first(), outcome.second())) {
            assertThat(round.answered().requests()).isEqualTo(REQUESTS_PER_ROUND);
            assertThat(round.answered().overH2c()).as("the requests marked for h2c were answered over HTTP/2")
                    .isPositive().isLessThan(round.answered().requests());
        }
    }

    @Test
    void withH2cOffEveryRequestGoesOverHttp1() {
        ProxyWarmup.Outcome outcome = ProxyWarmup.run("cache_aware", false, "auto", AMPLE, REQUESTS_PER_ROUND);

        for (ProxyWarmup.Round round : List.of(outcome.first(), outcome.second())) {
            assertThat(round.answered().requests()).isEqualTo(REQUESTS_PER_ROUND);
            assertThat(round.answered().overH2c()).isZero();
        }
    }

    @Test
    void theLanesSendExactlyTheRequestsAskedForAcrossTheirPauses() throws Exception {
        Vertx vertx = Vertx.vertx();
        try (WarmupWorker worker = WarmupWorker.start(vertx).await(30, TimeUnit.SECONDS)) {
            int port = URI.create(worker.url()).getPort();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);

            ProxyWarmup.Answered answered = ProxyWarmup.drive(vertx, port, true, 3_000, deadline, () -> false);

            assertThat(answered.requests()).isEqualTo(3_000);
            assertThat(answered.overH2c()).isPositive();
        } finally {
            vertx.close().await(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aRoundWhoseTimeIsUpBeforeItsGatewayIsUpIsCutShortNotFailed() {
        ProxyWarmup.Outcome outcome = ProxyWarmup.run("round_robin", true, "auto", Duration.ofNanos(1),
                REQUESTS_PER_ROUND);

        assertThat(outcome.first().answered().requests()).isZero();
        assertThat(outcome.second().answered().requests()).isZero();
        assertThat(outcome.first().settled()).isFalse();
    }

    @Test
    void theJitIsNotCalledQuietBeforeAWholeWindowWasMeasured() {
        assertThat(new ProxyWarmup.JitQuiet().getAsBoolean()).isFalse();
    }
}
