package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.MultiTurnChat;
import dev.homing.core.policy.PolicyFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CacheBoundsFrameTest {

    @TempDir
    Path dir;

    /**
     * A Mooncake-format trace of 24 sessions of 5 turns: every prompt starts with block 0 (as in the public trace),
     * then its session's own chain, one block longer each turn, ending in a partial block of its own.
     */
    private Path sessionTrace() throws IOException {
        List<String> rows = new ArrayList<>();
        for (int turn = 0; turn < 5; turn++) {
            for (int session = 0; session < 24; session++) {
                StringBuilder ids = new StringBuilder("0");
                for (int block = 1; block <= turn + 1; block++) {
                    ids.append(',').append(session * 100 + block);
                }
                ids.append(',').append(session * 100 + 50 + turn);
                int input = 512 * (turn + 2) + 300;
                rows.add("{\"timestamp\": " + (turn * 3000 + session * 20) + ", \"input_length\": " + input
                        + ", \"output_length\": 20, \"hash_ids\": [" + ids + "]}");
            }
        }
        return Files.write(dir.resolve("sessions.jsonl"), rows);
    }

    @Test
    void noPolicyBeatsTheInfiniteCacheOracle() throws IOException {
        MooncakeTrace trace = new MooncakeTrace(sessionTrace(), MooncakeTrace.Options.AS_RECORDED);
        SimulationSettings settings = SimulationSettings.defaults(4);

        for (String policy : PolicyFactory.NAMES) {
            SimulationResult result = Simulation.run(settings, RequestShape.COMPLETION, trace, policy);

            assertThat(result.hitRate()).as(policy).isLessThanOrEqualTo(result.bounds().oracle().tokenRate());
        }
    }

    @Test
    void noPolicyBeatsTheOracleOnChatsWhoseTurnsReuseTheAnswers() {
        MultiTurnChat chats = new MultiTurnChat(MultiTurnChat.Shape.typical(4.0, Limits.conversations(30), 5));
        SimulationSettings settings = SimulationSettings.defaults(3);

        for (String policy : PolicyFactory.NAMES) {
            SimulationResult result = Simulation.run(settings, RequestShape.CHAT, chats, policy);

            assertThat(result.cachedTokens()).as(policy).isLessThanOrEqualTo(result.bounds().oracle().hitTokens());
            assertThat(result.bounds().pooled().hitTokens()).as(policy)
                    .isLessThanOrEqualTo(result.bounds().oracle().hitTokens());
        }
    }

    @Test
    void aSmallPoolBoundsAffinityRoutingBelowTheOracle() throws IOException {
        MooncakeTrace trace = new MooncakeTrace(sessionTrace(), MooncakeTrace.Options.AS_RECORDED);
        SimulationSettings small = SimulationSettings.defaults(4);
        small = small.withEngine(small.engine().withKvTokens(8_000));

        SimulationResult result = Simulation.run(small, RequestShape.COMPLETION, trace, "cache_aware");

        assertThat(result.bounds().pooled().tokenRate()).isLessThan(result.bounds().oracle().tokenRate());
        assertThat(result.hitRate()).isLessThanOrEqualTo(result.bounds().pooled().tokenRate() + 0.02);
    }

    @Test
    void withRoomForEverythingAffinityRoutingReachesTheOracle() throws IOException {
        MooncakeTrace trace = new MooncakeTrace(sessionTrace(), MooncakeTrace.Options.AS_RECORDED);

        SimulationResult result = Simulation.run(SimulationSettings.defaults(4), RequestShape.COMPLETION, trace,
                "cache_aware");

        // Only the last token of a fully cached prompt is ever recomputed, and none here is fully cached.
        assertThat(result.hitRate()).isCloseTo(result.bounds().oracle().tokenRate(), within(0.01));
    }
}
