package dev.homing.cli.faults;

import static dev.homing.cli.faults.ProcessFleet.LOAD_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 3 of the suite: a flood of requests the engines refuse with 400 (prompts beyond their context length) is
 * the clients' fault, not the workers': no circuit opens and nothing is retried.
 */
class ClientErrorFloodIT {

    private static final int CONTEXT_TOKENS = 256;
    private static final int FLOOD = 300;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("client-error-flood");

    @Test
    void aFloodOfPromptsTooLongForTheEnginesOpensNoCircuit() throws Exception {
        List<EngineProcess> engines = List.of(
                fleet.engine("engine-0", ProcessFleet.ENGINE_JVM, "--time-scale", "10",
                        "--context-length", Integer.toString(CONTEXT_TOKENS)),
                fleet.engine("engine-1", ProcessFleet.ENGINE_JVM, "--time-scale", "10",
                        "--context-length", Integer.toString(CONTEXT_TOKENS)));
        // Thresholds low enough that a few 400s counted as failures would open a circuit at once.
        GatewayProcess gateway = fleet.gateway("512m", engines, "--policy", "round_robin",
                "--cb-failure-threshold", "2", "--cb-timeout-duration-secs", "60");
        fleet.awaitReady(gateway, 2);
        String url = gateway.url() + Requests.CHAT;
        // Four characters a token: this prompt alone is four times the context.
        String tooLong = "x".repeat(CONTEXT_TOKENS * 16);
        List<Answer> answers = new ArrayList<>();

        try (FaultClient client = new FaultClient(Duration.ofSeconds(30))) {
            answers.addAll(LoadRun.start(8, FLOOD,
                    i -> client.post(url, "too-long-" + i, Requests.chat(i + tooLong, 8, false), false))
                    .join(LOAD_TIMEOUT));

            assertThat(answers).as("each refused with the engine's 400, in the OpenAI error shape")
                    .allMatch(a -> a.status() == 400 && a.outcome() == Answer.Outcome.FAILED_CLEARLY);
            // A relayed answer's outcome is counted just after its last bytes go out.
            fleet.awaitOutcome("the engines answered them all", LOAD_TIMEOUT).until(() -> gateway
                    .metrics(fleet.control()).sum("smg_worker_cb_outcomes_total", "outcome", "client_error") == FLOOD);
            PrometheusText metrics = gateway.metrics(fleet.control());
            assertThat(metrics.sum("smg_worker_cb_transitions_total")).as("circuit changes").isZero();
            assertThat(metrics.sum("smg_worker_retries_total")).as("retries").isZero();
            for (EngineProcess engine : engines) {
                assertThat(gateway.circuitState(fleet.control(), engine)).as(engine.name()).isZero();
            }
            answers.addAll(LoadRun.start(2, 10,
                    i -> client.post(url, "fits-" + i, Requests.chat("fits " + i, 8, false), false))
                    .join(LOAD_TIMEOUT));
        }

        assertThat(answers.subList(FLOOD, answers.size())).as("both engines still take traffic")
                .allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
        assertThat(engines).allMatch(e -> !e.answeredIds().isEmpty());
        int duplicated = AnsweredIds.of(engines).duplicated().size();
        assertThat(duplicated).isZero();
        FaultFigures.record(new FaultFigures.Row("3", "Flood of prompts beyond the context (engine 400s), then "
                + "normal requests", answers, duplicated, null));
    }
}
