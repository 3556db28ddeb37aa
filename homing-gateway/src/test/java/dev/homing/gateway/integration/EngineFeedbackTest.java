package dev.homing.gateway.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Settings;
import dev.homing.core.policy.affinity.HitAccuracy;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import dev.homing.gateway.workers.ModelPool;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the engines report of each request reaches the policy that placed it. */
class EngineFeedbackTest {

    @Test
    void cachedTokensReportedByTheEnginesReachTheLearningPolicy() {
        SimEngineOptions options = SimEngines.options(SimEngines.config());
        List<SimEngineServer> engines = List.of(SimEngineServer.start(TestVertx.get(), options),
                SimEngineServer.start(TestVertx.get(), options));
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.WORKER_URLS, engines.stream().map(SimEngineServer::url).toList())
                .with(Settings.POLICY, LoadAwareAffinityPolicy.NAME))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 2);
            String prompt = "A long shared instruction that the engine will cache between the two requests. ".repeat(8);
            for (int i = 0; i < 2; i++) {
                assertThat(gateway.post("/v1/completions",
                        "{\"prompt\":\"" + prompt + "\",\"max_tokens\":4,\"stream\":" + (i == 1)
                                + ",\"stream_options\":{\"include_usage\":true}}").statusCode())
                        .isEqualTo(200);
            }

            ModelPool pool = gateway.gateway().registry().pools().iterator().next();
            LoadAwareAffinityPolicy policy = (LoadAwareAffinityPolicy) pool.policy();
            // The policy hears of an answer in a task of the event loop after its last bytes went to the client,
            // so the client can have the second answer before the policy has its report.
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> policy.hitAccuracy().stream().mapToLong(HitAccuracy::reports).sum() == 2);
            List<HitAccuracy> accuracy = policy.hitAccuracy();
            assertThat(accuracy.stream().mapToLong(HitAccuracy::realisedChars).sum()).isPositive();
        } finally {
            engines.forEach(SimEngineServer::close);
        }
    }
}
