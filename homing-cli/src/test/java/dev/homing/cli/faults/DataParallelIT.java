package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Data-parallel ranks live (issue 17, target 3): a {@code --dp-size 4} engine behind a gateway that routes to its
 * ranks ({@code --dp-aware}, {@code url@0..3}) keeps each conversation's prefix on the rank that holds it; the same
 * engine behind a gateway that sees it whole leaves the ranks to the engine's own round robin, which loses it.
 */
class DataParallelIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int RANKS = 4;

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("data-parallel");

    @Test
    void routingToTheRanksKeepsThePrefixCacheTheEnginesOwnRoundRobinLoses() throws Exception {
        EngineProcess ranked = fleet.engine("ranked", ProcessFleet.ENGINE_JVM, "--dp-size", "4", "--time-scale", "10");
        EngineProcess whole = fleet.engine("whole", ProcessFleet.ENGINE_JVM, "--dp-size", "4", "--time-scale", "10");
        GatewayProcess toRanks = fleet.gatewayFor("512m", List.of("--dp-aware", "--worker-urls",
                String.join(",", List.of(ranked.url() + "@0", ranked.url() + "@1", ranked.url() + "@2",
                        ranked.url() + "@3"))), "--policy", "cache_aware");
        GatewayProcess toEngine = fleet.gateway("512m", List.of(whole), "--policy", "cache_aware");
        fleet.awaitReady(toRanks, RANKS);
        fleet.awaitReady(toEngine, 1);

        double rankedHitRate = laterTurnsHitRate(toRanks.url());
        double roundRobinHitRate = laterTurnsHitRate(toEngine.url());

        assertThat(rankedHitRate).as("hit rate of later turns routed to ranks").isGreaterThan(0.5);
        assertThat(rankedHitRate).as("against the engine's round robin (%s)", roundRobinHitRate)
                .isGreaterThan(1.5 * roundRobinHitRate);
    }

    /** Eight conversations of four turns, each with a system prompt of its own: cached share of turns 2 to 4. */
    private static double laterTurnsHitRate(String gateway) {
        long cached = 0;
        long prompt = 0;
        try (FaultClient client = new FaultClient(Duration.ofSeconds(60))) {
            for (int conversation = 0; conversation < 8; conversation++) {
                StringBuilder messages = new StringBuilder("{\"role\":\"system\",\"content\":\"conversation "
                        + conversation + " of a gateway at " + gateway + ". " + "Answer in one line. ".repeat(60)
                        + "\"}");
                for (int turn = 0; turn < 4; turn++) {
                    messages.append(",{\"role\":\"user\",\"content\":\"question ").append(turn).append("\"}");
                    Answer answer = client.post(gateway + Requests.CHAT, "dp-" + conversation + "-" + turn,
                            "{\"messages\":[" + messages + "],\"max_tokens\":16}", false);
                    assertThat(answer.outcome()).isEqualTo(Answer.Outcome.SUCCEEDED);
                    JsonNode body = JSON.readTree(answer.body());
                    if (turn > 0) {
                        cached += body.path("usage").path("prompt_tokens_details").path("cached_tokens").asLong();
                        prompt += body.path("usage").path("prompt_tokens").asLong();
                    }
                    messages.append(",{\"role\":\"assistant\",\"content\":").append(JSON.writeValueAsString(
                            body.path("choices").path(0).path("message").path("content").asString())).append('}');
                }
            }
        }
        return prompt == 0 ? 0 : (double) cached / prompt;
    }
}
