package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault 6 of the suite: gateways pointed at themselves. A gateway with its own URL among {@code --worker-urls}
 * refuses that worker and serves with the others; {@code POST /workers} with its own URL gets 400; two gateways that
 * are each other's only workers answer 508 after four hops instead of bouncing requests without end; and SIGTERM
 * stops both at once.
 */
class GatewayLoopIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int REQUESTS = 20;
    private static final String ADMIN = "--allow-unauthenticated-admin";

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("gateway-loop");

    @Test
    void aGatewayIsNeverItsOwnWorkerAndTwoThatAreEachOthersStopAfterFourHops() throws IOException {
        EngineProcess engine = fleet.engine("engine", ProcessFleet.ENGINE_JVM, "--time-scale", "20");
        int port = freePort();
        String self = "http://127.0.0.1:" + port;
        GatewayProcess front = fleet.gateway("512m", port, List.of(self, engine.url()), ADMIN);
        fleet.awaitReady(front, 1);
        FaultClient control = fleet.control();

        fleet.awaitOutcome("its own URL refused, said in the log", TIMEOUT).until(() -> Files
                .readString(front.process().log()).contains(self + " is this gateway's own address")
                && !control.get(front.url() + "/workers").body().contains(self));
        assertThat(control.get(front.url() + "/workers").body()).contains(engine.url());
        assertThat(control.postJson(front.url() + "/workers", "{\"url\":\"" + self + "\"}").statusCode())
                .isEqualTo(400);
        List<Answer> answers = new ArrayList<>();
        try (FaultClient client = new FaultClient(TIMEOUT)) {
            for (int i = 0; i < REQUESTS; i++) {
                answers.add(client.post(front.url() + Requests.CHAT, "direct-" + i, Requests.chat("direct " + i, 4,
                        false), false));
            }
            assertThat(answers).allMatch(answer -> answer.outcome() == Answer.Outcome.SUCCEEDED);
            // A relayed answer's record is written just after its last bytes go out: the last one may follow.
            fleet.awaitOutcome("each request came in once: no hop back", TIMEOUT)
                    .until(() -> chatRequests(front) == REQUESTS);

            // A second gateway in front of the first, then the first in front of the second alone.
            GatewayProcess back = fleet.gateway("512m", 0, List.of(front.url()), ADMIN);
            fleet.awaitReady(back, 1);
            assertThat(control.postJson(front.url() + "/workers", "{\"url\":\"" + back.url() + "\"}").statusCode())
                    .isEqualTo(202);
            fleet.awaitReady(front, 2);
            assertThat(control.send("DELETE", front.url() + "/workers/"
                    + URLEncoder.encode(engine.url(), StandardCharsets.UTF_8)).statusCode()).isEqualTo(200);

            List<Answer> looped = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                looped.add(client.post(front.url() + Requests.CHAT, "looped-" + i, Requests.chat("looped " + i, 4,
                        false), false));
            }
            answers.addAll(looped);

            assertThat(looped).allSatisfy(answer -> {
                assertThat(answer.status()).isEqualTo(508);
                assertThat(answer.body()).contains("\"loop_detected\"");
                assertThat(answer.outcome()).isEqualTo(Answer.Outcome.FAILED_CLEARLY);
            });
            fleet.awaitOutcome("each looped request came in three times: 0, 2 and 4 hops", TIMEOUT)
                    .until(() -> chatRequests(front) == REQUESTS + 3 * REQUESTS);
            fleet.awaitOutcome("and passed the other gateway twice", TIMEOUT)
                    .until(() -> chatRequests(back) == 2 * REQUESTS);
            Duration frontStop = front.process().terminate(Duration.ofSeconds(20));
            Duration backStop = back.process().terminate(Duration.ofSeconds(20));
            assertThat(frontStop).as("SIGTERM stops the gateway").isNotNull();
            assertThat(backStop).as("SIGTERM stops the other gateway").isNotNull();
            FaultFigures.record(new FaultFigures.Row("6", "Own URL in --worker-urls (refused, " + REQUESTS
                    + " served directly), then two gateways each other's only workers (" + REQUESTS + " refused "
                    + "with 508 after 4 hops, 60 requests in at one, 40 at the other); SIGTERM stopped them in "
                    + frontStop.toMillis() + " and " + backStop.toMillis() + " ms", answers,
                    AnsweredIds.of(List.of(engine)).duplicated().size(), null));
        }
    }

    private long chatRequests(GatewayProcess gateway) {
        return (long) gateway.metrics(fleet.control()).sum("smg_http_requests_total", "path", Requests.CHAT);
    }

    /** A port the OS picks, given back at once for the gateway to bind: its own URL is known before it starts. */
    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
