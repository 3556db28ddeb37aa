package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The proxy warm-up of {@code homing launch} ({@code --warmup-secs}) as a user sees it: one log line, whether it ran
 * whole or its time was up first (a busy machine), before the gateway serves, and nothing of it afterwards: no
 * access-log line, no worker, model or request in what the gateway shows. And a port in use fails the start before
 * any warm-up.
 */
class ProxyWarmupIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int REQUESTS = 5;
    /** The one line a warm-up leaves: it ran, or its time was up before its gateways were. */
    private static final String WARMUP_LINE = "(proxy path warmed up: |proxy warm-up cut short after )";

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("proxy-warmup");

    @Test
    void theWarmupRunsBeforeTheGatewayServesAndLeavesNoTraceInWhatItServes() throws Exception {
        EngineProcess engine = fleet.engine("engine", ProcessFleet.ENGINE_JVM, "--time-scale", "20");
        GatewayProcess gateway = fleet.gateway("512m", 0, List.of(engine.url()), "--warmup-secs", "3",
                "--log-level", "info");
        fleet.awaitReady(gateway, 1);
        try (FaultClient client = new FaultClient(TIMEOUT)) {
            for (int i = 0; i < REQUESTS; i++) {
                Answer answer = client.post(gateway.url() + Requests.CHAT, "after-warmup-" + i,
                        Requests.chat("after warm-up " + i, 4, false), false);
                assertThat(answer.outcome()).isEqualTo(Answer.Outcome.SUCCEEDED);
            }
        }

        String log = Files.readString(gateway.process().log());
        assertThat(log.split(WARMUP_LINE, -1)).as("one warm-up line").hasSize(2);
        assertThat(log).containsOnlyOnce("gateway listening on").doesNotContain("proxy warm-up skipped");
        assertThat(log.split(WARMUP_LINE, -1)[1]).as("the warm-up's line comes before the gateway serves")
                .contains("gateway listening on");
        assertThat(log).as("nothing the warm-up's threads log").doesNotContain("homing-warmup");
        FaultClient control = fleet.control();
        assertThat(control.get(gateway.url() + "/v1/models").body()).doesNotContain("homing-warmup");
        // A relayed answer's record is written just after its last bytes go out: the last one may follow.
        fleet.awaitOutcome("only the requests sent after the start are counted", TIMEOUT)
                .until(() -> gateway.metrics(control).sum("smg_http_requests_total", "path", Requests.CHAT)
                        == REQUESTS);
        assertThat(gateway.metrics(control).toString()).doesNotContain("homing-warmup");
    }

    @Test
    void aPortInUseFailsTheStartBeforeAnyWarmupNamingThePortAndItsListener() throws Exception {
        GatewayProcess first = fleet.gateway("256m", 0, List.of("http://127.0.0.1:9"));
        int taken = Integer.parseInt(first.url().substring(first.url().lastIndexOf(':') + 1));

        HomingProcess second = HomingProcess.start("second", List.of("-Xmx256m"), List.of("launch", "--host",
                "127.0.0.1", "--port", String.valueOf(taken), "--prometheus-port", "-1", "--warmup-secs", "30"),
                fleet.dir());
        try {
            assertThat(second.awaitOwnExit(ProcessFleet.START_TIMEOUT)).isEqualTo(1);
        } finally {
            second.close();
        }

        String log = Files.readString(second.log());
        assertThat(log).contains("cannot listen on 127.0.0.1:" + taken + " for the data-plane listener")
                .doesNotContain("warm-up").doesNotContain("warmed up").doesNotContain("Exception");
    }
}
