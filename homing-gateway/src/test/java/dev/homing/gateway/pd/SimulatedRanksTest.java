package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --dp-aware} in front of a simulated engine of three data-parallel ranks ({@code homing sim-engine
 * --dp-size 3}), each rank with a cache of its own: routed to the rank that holds it, a prompt sent again finds itself
 * cached; left to the engine's own round robin, it lands on a rank that never saw it.
 */
class SimulatedRanksTest {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String PROMPT = "{\"text\":\"" + "the same long system prompt ".repeat(40)
            + "\",\"sampling_params\":{\"max_new_tokens\":2}}";

    @RegisterExtension
    final Closing closing = new Closing();

    private SimEngineServer engine() {
        return closing.add(SimEngineServer.start(TestVertx.get(),
                SimEngines.options(SimEngines.config().with(Settings.DP_SIZE, 3))));
    }

    private RunningGateway gateway(boolean dpAware, List<String> urls) {
        return closing.add(RunningGateway.start(RunningGateway.config(List.of()).with(Settings.DP_AWARE, dpAware)
                .with(Settings.POLICY, "cache_aware").with(Settings.WORKER_URLS, urls)));
    }

    /** The cached prompt tokens the engine reported for each of four sends of one prompt, the first cold. */
    private static List<Integer> cachedOverFourSends(RunningGateway gateway) {
        return IntStream.range(0, 4).mapToObj(i -> {
            HttpResponse<String> response = gateway.post("/generate", PROMPT);
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            return JSON.readTree(response.body()).path("meta_info").path("cached_tokens").asInt();
        }).toList();
    }

    @Test
    void aPromptRoutedToTheRankThatHoldsItIsCachedEveryTimeAfterTheFirst() {
        SimEngineServer engine = engine();
        RunningGateway gateway = gateway(true, IntStream.range(0, 3).mapToObj(r -> engine.url() + "@" + r).toList());

        List<Integer> cached = cachedOverFourSends(gateway);

        assertThat(cached.getFirst()).isZero();
        assertThat(cached.subList(1, 4)).allSatisfy(tokens -> assertThat(tokens).isGreaterThan(200));
    }

    @Test
    void theEnginesOwnRoundRobinSendsThePromptToARankThatNeverSawIt() {
        SimEngineServer engine = engine();
        RunningGateway gateway = gateway(false, List.of(engine.url()));

        List<Integer> cached = cachedOverFourSends(gateway);

        // Ranks 0, 1, 2 in turn: the second and third sends are cold too; the fourth is back on rank 0.
        assertThat(cached.subList(0, 3)).containsOnly(0);
        assertThat(cached.get(3)).isGreaterThan(200);
    }
}
