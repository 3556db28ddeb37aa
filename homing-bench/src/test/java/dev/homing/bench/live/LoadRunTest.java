package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LoadRunTest {

    private static final RunCaps CAPS = new RunCaps(1_000, Duration.ofSeconds(20));

    private Vertx vertx;
    private SimEngineServer engine;

    @BeforeEach
    void start() {
        vertx = Vertx.vertx();
        engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000));
    }

    @AfterEach
    void stop() {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void theHitRateFromUsageAgreesWithTheEnginesCountersOnOneEngine() {
        BenchResult result = LiveRuns.execute(vertx, LiveRuns.target(engine.url(), Endpoint.CHAT),
                LiveRuns.sharedPrefix(8), new Pacing.ClosedLoop(4), CAPS, List.of(engine.url()));

        assertThat(result.requests().succeeded()).isEqualTo(32);
        assertThat(result.cacheHitRate().fromUsage()).isPositive();
        assertThat(result.cacheHitRate().fromEngines()).isCloseTo(result.cacheHitRate().fromUsage(), within(1e-9));
        assertThat(result.workers()).singleElement().satisfies(worker -> {
            assertThat(worker.requests()).isEqualTo(32);
            assertThat(worker.requestShare()).isEqualTo(1.0);
        });
    }

    @Test
    void sglangGenerateStreamsReportCachedTokensFromMetaInfo() {
        BenchResult result = LiveRuns.execute(vertx, LiveRuns.target(engine.url(), Endpoint.GENERATE),
                LiveRuns.sharedPrefix(4), new Pacing.ClosedLoop(2), CAPS, List.of());

        assertThat(result.errors()).isEmpty();
        assertThat(result.timeToFirstToken().count()).isEqualTo(16);
        assertThat(result.cacheHitRate().answersWithUsage()).isEqualTo(16);
        assertThat(result.cacheHitRate().fromUsage()).isPositive();
    }

    @Test
    void aRunWithoutEngineUrlsHasNoEngineHitRate() {
        BenchResult result = LiveRuns.execute(vertx, LiveRuns.target(engine.url(), Endpoint.COMPLETIONS),
                LiveRuns.sharedPrefix(2), new Pacing.ClosedLoop(2), CAPS, List.of());

        assertThat(result.requests().succeeded()).isEqualTo(8);
        assertThat(result.cacheHitRate().fromEngines()).isNull();
        assertThat(result.workers()).isEmpty();
    }
}
