package dev.homing.cli.faults;

import static dev.homing.cli.faults.ProcessFleet.LOAD_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 1 of the suite: one of four engine processes is killed (SIGKILL) under steady load of plain requests and
 * streams, then restarted on its port.
 */
class EngineKillIT {

    /**
     * Twice real time: a 500-token stream lasts about two seconds on the engine however busy the machine is, so a
     * kill finds streams half generated, and a plain 8-token request some 35 ms.
     */
    private static final String TIME_SCALE = "2";
    private static final int PLAIN_CLIENTS = 2;
    private static final int PLAIN_REQUESTS = 300;
    private static final int STREAMS = 32;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("engine-kill");

    @Test
    void killingAnEngineUnderLoadLosesNoRequestDuplicatesNoneAndItsRestartBringsTrafficBack() throws Exception {
        List<EngineProcess> engines = IntStream.range(0, 4)
                .mapToObj(i -> fleet.engine("engine-" + i, ProcessFleet.ENGINE_JVM, "--time-scale", TIME_SCALE,
                        "--seed", Integer.toString(i)))
                .toList();
        GatewayProcess gateway = fleet.gateway("512m", engines, "--policy", "round_robin",
                "--cb-timeout-duration-secs", "2", "--request-timeout-secs", "60");
        fleet.awaitReady(gateway, 4);
        EngineProcess victim = engines.get(1);
        String url = gateway.url() + Requests.CHAT;

        try (FaultClient client = new FaultClient(Duration.ofSeconds(60));
             FaultClient streamClient = new FaultClient(Duration.ofSeconds(60))) {
            LoadRun plain = LoadRun.start(PLAIN_CLIENTS, PLAIN_REQUESTS,
                    i -> client.post(url, "kill-plain-" + i, Requests.chat("plain " + i, 8, false), false));
            LoadRun streams = LoadRun.start(16, STREAMS,
                    i -> streamClient.post(url, "kill-stream-" + i, Requests.chat("stream " + i, 500, true), true));
            // More requests in flight on the victim than there are plain clients: at least one is a stream to cut.
            fleet.awaitOutcome("victim busy with streams", LOAD_TIMEOUT)
                    .until(() -> victim.requestsInFlight(fleet.control()) > PLAIN_CLIENTS);
            victim.kill();
            List<Answer> plainAnswers = plain.join(LOAD_TIMEOUT);
            List<Answer> streamAnswers = streams.join(LOAD_TIMEOUT);

            AnsweredIds answered = AnsweredIds.of(engines);
            assertThat(plainAnswers).as("every plain request succeeds, retried elsewhere if need be")
                    .allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
            assertThat(plainAnswers).as("answered by exactly one engine, which saw the client's x-request-id")
                    .allMatch(a -> answered.timesAnswered(a.requestId()) == 1);
            assertThat(streamAnswers).as("no stream lost or cut silently")
                    .noneMatch(a -> a.outcome() == Answer.Outcome.LOST);
            List<Answer> cut = streamAnswers.stream().filter(Answer::streamCutWithErrorEvent).toList();
            assertThat(cut).as("the victim's streams end with an SSE error event").isNotEmpty();
            assertThat(cut).as("a cut stream is not run again elsewhere")
                    .allMatch(a -> answered.timesAnswered(a.requestId()) == 0);
            assertThat(answered.duplicated()).as("requests answered twice").isEmpty();

            fleet.awaitOutcome("the gateway sees the victim gone", LOAD_TIMEOUT)
                    .until(() -> gateway.healthyWorkers(fleet.control()) == 3);
            victim.restart();
            fleet.awaitReady(gateway, 4);
            int answeredBefore = victim.answeredIds().size();
            List<Answer> afterRestart = LoadRun.start(4, 40,
                    i -> client.post(url, "kill-after-" + i, Requests.chat("after " + i, 8, false), false))
                    .join(LOAD_TIMEOUT);

            assertThat(afterRestart).allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
            assertThat(victim.answeredIds().size()).as("the restarted engine gets traffic again")
                    .isGreaterThan(answeredBefore);
            List<Answer> all = new ArrayList<>(plainAnswers);
            all.addAll(streamAnswers);
            all.addAll(afterRestart);
            int duplicated = AnsweredIds.of(engines).duplicated().size();
            assertThat(duplicated).isZero();
            FaultFigures.record(new FaultFigures.Row("1", "Kill 1 of 4 engines under load (" + cut.size()
                    + " streams cut), restart it", all, duplicated, null));
        }
    }
}
