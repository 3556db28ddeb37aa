package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.sim.http.Faults;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import io.vertx.core.Vertx;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class WorkloadDriverTest {

    private static final SimEngineOptions FAST = SimEngineOptions.defaults().withTimeScale(1000);
    private static final RunCaps GENEROUS = new RunCaps(1_000, Duration.ofSeconds(20));

    private static Vertx vertx;
    private static SimEngineServer engine;

    @BeforeAll
    static void start() {
        vertx = Vertx.vertx();
        engine = SimEngineServer.start(FAST);
    }

    @AfterAll
    static void stop() {
        engine.close();
        vertx.close().toCompletionStage().toCompletableFuture().join();
    }

    @Test
    void aClosedLoopRunEndsEveryRequestWithoutErrorsAndMeasuresTimeToFirstToken() throws Exception {
        LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(engine.url(), Endpoint.CHAT), true,
                LiveRuns.sharedPrefix(8), new Pacing.ClosedLoop(4), GENEROUS);

        assertThat(run.sent()).isEqualTo(32);
        assertThat(run.outcomes()).hasSize(32).allSatisfy(outcome -> {
            assertThat(outcome.status()).isEqualTo(RequestOutcome.Status.SUCCESS);
            assertThat(outcome.ttftNanos()).isPositive();
            assertThat(outcome.usage().completionTokens()).isEqualTo(16);
        });
        assertThat(run.summary().stoppedAtDurationCap()).isFalse();
    }

    @Test
    void theNextTurnOfAChatCarriesTheAnswerTheServerGave() throws Exception {
        MultiTurnChat chat = new MultiTurnChat(new MultiTurnChat.Shape(1, 300, 2, 20, 24, 0, 1,
                Limits.conversations(1), 3));

        LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(engine.url(), Endpoint.CHAT), true, chat,
                new Pacing.ClosedLoop(1), GENEROUS);

        List<RequestOutcome> turns = run.outcomes();
        assertThat(turns).hasSize(2).allMatch(RequestOutcome::succeeded);
        // The engine keeps turn 1's prompt and answer; turn 2 hits past the prompt only if it sent that answer.
        assertThat(turns.get(1).usage().cachedTokens()).isGreaterThan(turns.get(0).usage().promptTokens());
    }

    @Test
    void anOpenLoopSendsAboutRateTimesDuration() throws Exception {
        GeneratedSharedPrefix steady = new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(64, 16, 64, 16, 4,
                200, true, 11));

        LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(engine.url(), Endpoint.CHAT), true, steady,
                new Pacing.OpenLoop(), new RunCaps(10_000, Duration.ofSeconds(1)));

        assertThat(run.sent()).isBetween(150L, 250L);
        assertThat(run.outcomes()).hasSize((int) run.sent());
    }

    @Test
    void anOpenLoopChatSendsEveryTurnAfterItsAnswerAndThinkTime() throws Exception {
        MultiTurnChat chat = new MultiTurnChat(new MultiTurnChat.Shape(2, 200, 3, 20, 8, 0.01, 50,
                Limits.conversations(5), 5));

        LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(engine.url(), Endpoint.CHAT), true, chat,
                new Pacing.OpenLoop(), GENEROUS);

        assertThat(run.outcomes()).hasSize(15).allMatch(RequestOutcome::succeeded);
        assertThat(run.summary().unsentTurns()).isZero();
    }

    @Test
    void requestsToAClosedPortEndAsConnectionErrors() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target("http://127.0.0.1:" + closedPort, Endpoint.CHAT),
                true, LiveRuns.sharedPrefix(4), new Pacing.ClosedLoop(2), new RunCaps(10, Duration.ofSeconds(10)));

        assertThat(run.sent()).isEqualTo(10);
        assertThat(run.outcomes()).hasSize(10).allMatch(o -> o.errorKind().equals("connection"));
    }

    @Test
    void errorStatusesAreCountedByStatus() throws Exception {
        try (SimEngineServer failing = SimEngineServer.start(FAST.withFaults(Faults.NONE.withFailRate(0.5, 503)))) {
            LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(failing.url(), Endpoint.CHAT), true,
                    LiveRuns.sharedPrefix(8), new Pacing.ClosedLoop(4), GENEROUS);

            assertThat(run.outcomes()).hasSize(32);
            assertThat(run.outcomes()).filteredOn(o -> !o.succeeded())
                    .isNotEmpty().allMatch(o -> o.errorKind().equals("http_503"));
            assertThat(run.outcomes()).filteredOn(RequestOutcome::succeeded).isNotEmpty();
        }
    }

    @Test
    void theDurationCapCancelsRequestsInFlightAndCountsThem() throws Exception {
        try (SimEngineServer stalling = SimEngineServer.start(FAST.withFaults(Faults.NONE.withStallAfterTokens(2)))) {
            LiveRuns.Driven run = LiveRuns.drive(vertx, LiveRuns.target(stalling.url(), Endpoint.CHAT), true,
                    LiveRuns.sharedPrefix(8), new Pacing.ClosedLoop(4), new RunCaps(100, Duration.ofMillis(500)));

            // Every request stalls, so the four in flight at the cap are the four cancelled.
            assertThat(run.summary().stoppedAtDurationCap()).isTrue();
            assertThat(run.outcomes()).hasSize((int) run.sent());
            assertThat(run.outcomes()).filteredOn(o -> o.errorKind().equals("cancelled")).hasSize(4)
                    .allMatch(o -> o.textChunks() > 0);
        }
    }
}
