package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy warm-up of {@code homing launch} ({@code --warmup-secs}) as a user sees it: one log line before the port
 * opens, and nothing of it afterwards: no access-log line, no worker, model or request in what the gateway shows.
 */
class ProxyWarmupIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int REQUESTS = 5;

    private final ProcessFleet fleet = new ProcessFleet("proxy-warmup");

    @AfterEach
    void stopProcesses() {
        fleet.close();
    }

    @Test
    void theWarmupRunsBeforeThePortOpensAndLeavesNoTraceInWhatTheGatewayServes() throws IOException {
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
        assertThat(log).containsOnlyOnce("proxy path warmed up: ").containsOnlyOnce("gateway listening on");
        assertThat(log.indexOf("proxy path warmed up: ")).isLessThan(log.indexOf("gateway listening on"));
        assertThat(log).doesNotContain("homing-warmup");
        FaultClient control = fleet.control();
        assertThat(control.get(gateway.url() + "/v1/models").body()).doesNotContain("homing-warmup");
        assertThat(gateway.metrics(control).sum("smg_http_requests_total", "path", Requests.CHAT))
                .as("only the requests sent after the start are counted").isEqualTo(REQUESTS);
        assertThat(gateway.metrics(control).toString()).doesNotContain("homing-warmup");
    }
}
