package dev.homing.gateway.workers;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.awaitility.Awaitility.await;

class LoadPollingTest {

    @Test
    void powerOfTwoReadsTheLoadWorkersReport() {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                     .with(Settings.POLICY, "power_of_two").with(Settings.WORKER_STARTUP_CHECK_INTERVAL, 1L))) {
            await().atMost(Duration.ofSeconds(30)).until(
                    () -> gateway.gateway().registry().find(worker.url()).reportedLoad() == 7);
        }
    }

    @Test
    void aWorkerThatNeverAnswersIsDroppedAfterTheStartupTimeout() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.WORKER_STARTUP_TIMEOUT_SECS, 1L))) {
            var registration = gateway.gateway().addWorker(WorkerSpec.of("http://127.0.0.1:1", null));

            await().atMost(Duration.ofSeconds(30)).until(() -> registration.activated().failed());
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().workers().isEmpty());
        }
    }
}
