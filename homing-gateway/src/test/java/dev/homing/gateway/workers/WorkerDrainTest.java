package dev.homing.gateway.workers;

import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import io.vertx.core.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Draining a worker: no new request from the moment it starts, the requests in flight go on, and the worker is
 * removed when they are done or when the grace is over, whichever comes first.
 */
class WorkerDrainTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String STREAM = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\","
            + "\"content\":\"tell me everything\"}]}";

    private FakeWorker going;
    private FakeWorker staying;
    private RunningGateway gateway;
    private Worker worker;
    private Socket stream;

    /** A gateway with one worker holding an endless stream, and a second worker beside it. */
    @BeforeEach
    void start() throws Exception {
        going = FakeWorker.start("m");
        going.behaviour(FakeWorker.Behaviour.ENDLESS_STREAM);
        staying = FakeWorker.start("m");
        gateway = RunningGateway.start(List.of(going), "round_robin");
        worker = gateway.gateway().registry().find(going.url());
        stream = gateway.openPost("/v1/chat/completions", STREAM);
        await().atMost(WAIT).until(() -> worker.inFlight() == 1);
        gateway.gateway().addWorker(WorkerSpec.of(staying.url(), null)).activated().toCompletionStage()
                .toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws Exception {
        stream.close();
        gateway.close();
        going.close();
        staying.close();
    }

    @Test
    void aDrainingWorkerGetsNoNewRequestAndIsRemovedOnceItsRequestsAreDone() throws Exception {
        Future<Void> drained = gateway.gateway().drainWorker(worker, Duration.ofSeconds(60));

        assertThat(worker.state()).isEqualTo(Worker.State.DRAINING);
        for (int i = 0; i < 4; i++) {
            HttpResponse<String> answer = gateway.post("/v1/chat/completions",
                    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi " + i + "\"}]}");
            assertThat(answer.headers().firstValue("x-worker")).hasValue(staying.url());
        }
        assertThat(gateway.gateway().registry().find(going.url())).as("still there for its stream").isNotNull();
        assertThat(going.received()).hasSize(1);

        stream.close();

        drained.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        assertThat(worker.state()).isEqualTo(Worker.State.REMOVED);
        assertThat(gateway.gateway().registry().find(going.url())).isNull();
    }

    @Test
    void aWorkerStillBusyWhenTheGraceIsOverIsRemovedWithoutCuttingItsRequests() throws Exception {
        gateway.gateway().drainWorker(worker, Duration.ofMillis(200)).toCompletionStage().toCompletableFuture()
                .get(20, TimeUnit.SECONDS);

        assertThat(worker.state()).isEqualTo(Worker.State.REMOVED);
        assertThat(worker.inFlight()).as("the stream goes on").isEqualTo(1);
        assertThat(going.streamsCutByClient()).isZero();
    }

    @Test
    void aResumedWorkerTakesTrafficAgainAndStays() throws Exception {
        Future<Void> drained = gateway.gateway().drainWorker(worker, Duration.ofSeconds(60));

        assertThat(gateway.gateway().registry().resume(worker)).isTrue();

        drained.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
        stream.close();
        await().atMost(WAIT).until(() -> worker.inFlight() == 0);
        assertThat(worker.state()).isEqualTo(Worker.State.ACTIVE);
        assertThat(worker.available()).isTrue();
    }
}
