package dev.homing.cli.faults;

import static dev.homing.cli.faults.ProcessFleet.LOAD_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 2 of the suite: of four engines one fails half its requests with 500 and one hangs. Their circuits open,
 * traffic moves to the others, and once the faults are cleared the circuits close again. (A 503 or 429 is an
 * engine's backpressure, which opens no circuit: RetryAndBreakerWiringTest.)
 */
class FailingEngineIT {

    /** Open circuits wait this long before half-open probes: long enough to watch, short enough for a test. */
    private static final String OPEN_SECONDS = "4";
    /**
     * What the hung engine's requests wait before they time out: short enough to open its circuit in seconds, long
     * enough that a healthy engine on a machine with both cores busy always answers within it.
     */
    private static final String REQUEST_TIMEOUT_SECONDS = "4";

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("failing-engines");

    @Test
    void circuitsOfAFlakyAndAHungEngineOpenTrafficMovesAndTheyCloseOnceTheFaultsAreCleared() throws Exception {
        EngineProcess flaky = fleet.engine("flaky", ProcessFleet.ENGINE_JVM, "--time-scale", "10",
                "--fail-rate", "0.5", "--fail-status", "500", "--seed", "42");
        EngineProcess hung = fleet.engine("hung", ProcessFleet.ENGINE_JVM, "--time-scale", "10",
                "--stall-after-tokens", "1");
        List<EngineProcess> healthy = List.of(
                fleet.engine("healthy-0", ProcessFleet.ENGINE_JVM, "--time-scale", "10"),
                fleet.engine("healthy-1", ProcessFleet.ENGINE_JVM, "--time-scale", "10"));
        List<EngineProcess> engines = List.of(flaky, hung, healthy.get(0), healthy.get(1));
        GatewayProcess gateway = fleet.gateway("512m", engines, "--policy", "round_robin",
                "--cb-failure-threshold", "3", "--cb-success-threshold", "2",
                "--cb-timeout-duration-secs", OPEN_SECONDS, "--request-timeout-secs", REQUEST_TIMEOUT_SECONDS);
        fleet.awaitReady(gateway, 4);
        String url = gateway.url() + Requests.CHAT;
        List<Answer> answers = new ArrayList<>();

        try (FaultClient client = new FaultClient(Duration.ofSeconds(30))) {
            LoadRun faulty = LoadRun.start(8, 2_000,
                    i -> client.post(url, "failing-" + i, Requests.chat("faulty " + i, 8, false), false));
            fleet.awaitOutcome("both circuits open", LOAD_TIMEOUT)
                    .until(() -> opened(gateway, flaky) > 0 && opened(gateway, hung) > 0);
            faulty.stop();
            answers.addAll(faulty.join(LOAD_TIMEOUT));
            assertThat(answers).as("a flaky engine's 500s are retried elsewhere; the hung one's requests time out")
                    .allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED
                            || a.outcome() == Answer.Outcome.FAILED_CLEARLY && a.status() == 504);
            // The gateway logs a circuit's change just after counting it.
            fleet.awaitOutcome("the opening logged", LOAD_TIMEOUT)
                    .until(() -> Files.readString(gateway.process().log()).contains("circuit closed -> open"));

            trafficMovesWhileTheHungCircuitStaysOpen(gateway, hung, client, url, answers);

            flaky.clearFaults(fleet.control());
            hung.clearFaults(fleet.control());
            LoadRun recovery = LoadRun.start(2, 2_000,
                    i -> client.post(url, "recovery-" + i, Requests.chat("recovery " + i, 8, false), false));
            fleet.awaitOutcome("every circuit closed again", LOAD_TIMEOUT)
                    .until(() -> engines.stream().allMatch(e -> gateway.circuitState(fleet.control(), e) == 0)
                            && closedAgain(gateway, flaky) > 0 && closedAgain(gateway, hung) > 0);
            recovery.stop();
            List<Answer> recovered = recovery.join(LOAD_TIMEOUT);
            answers.addAll(recovered);
        }

        assertThat(answers).noneMatch(a -> a.outcome() == Answer.Outcome.LOST);
        int duplicated = AnsweredIds.of(engines).duplicated().size();
        assertThat(duplicated).isZero();
        FaultFigures.record(new FaultFigures.Row("2", "1 engine failing half its requests with 500, 1 hung, "
                + "2 healthy; faults then cleared", answers, duplicated, null));
    }

    /**
     * Sends a batch between two looks at the hung engine's circuit; if it stayed open throughout (no half-open probe
     * in between), not one request may have gone to that engine, and every one must have succeeded. Otherwise tries
     * again, a few times. The first look is the page that showed the circuit open: a second scrape could come after
     * the open timeout and count the move to half-open before the batch sends the probe.
     */
    private void trafficMovesWhileTheHungCircuitStaysOpen(GatewayProcess gateway, EngineProcess hung,
                                                          FaultClient client, String url, List<Answer> answers)
            throws InterruptedException {
        for (int attempt = 0; attempt < 5; attempt++) {
            int round = attempt;
            AtomicReference<PrometheusText> open = new AtomicReference<>();
            fleet.awaitOutcome("hung circuit open", LOAD_TIMEOUT).until(() -> {
                PrometheusText now = gateway.metrics(fleet.control());
                if (GatewayProcess.circuitState(now, hung) == 1) {
                    open.set(now);
                    return true;
                }
                // Half-open with no traffic stays half-open: a few requests give the hung engine its probe, whose
                // timeout opens the circuit again.
                answers.addAll(LoadRun.start(4, 8, i -> client.post(url, "reopen-" + round + "-" + i,
                        Requests.chat("reopen " + i, 8, false), false)).join(LOAD_TIMEOUT));
                return false;
            });
            PrometheusText before = open.get();
            String prefix = "moved-" + attempt + "-";
            List<Answer> batch = LoadRun.start(4, 40,
                    i -> client.post(url, prefix + i, Requests.chat("moved " + i, 8, false), false))
                    .join(LOAD_TIMEOUT);
            PrometheusText after = gateway.metrics(fleet.control());
            answers.addAll(batch);
            if (halfOpened(before, hung) == halfOpened(after, hung)) {
                assertThat(sentTo(after, hung)).as("requests sent to the hung engine while its circuit was open")
                        .isEqualTo(sentTo(before, hung));
                assertThat(batch).allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
                return;
            }
        }
        throw new AssertionError("the hung engine's circuit never stayed open through a batch of 40 requests");
    }

    private double opened(GatewayProcess gateway, EngineProcess engine) {
        return gateway.metrics(fleet.control()).sum("smg_worker_cb_transitions_total", "worker", engine.url(),
                "from", "closed", "to", "open");
    }

    private double closedAgain(GatewayProcess gateway, EngineProcess engine) {
        return gateway.metrics(fleet.control()).sum("smg_worker_cb_transitions_total", "worker", engine.url(),
                "from", "half_open", "to", "closed");
    }

    private static double halfOpened(PrometheusText metrics, EngineProcess engine) {
        return metrics.sum("smg_worker_cb_transitions_total", "worker", engine.url(), "to", "half_open");
    }

    private static double sentTo(PrometheusText metrics, EngineProcess engine) {
        return metrics.sum("homing_worker_requests_total", "worker", engine.url());
    }
}
