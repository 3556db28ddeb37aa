package dev.homing.gateway.workers;

import dev.homing.core.policy.PolicyFactory;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** Every policy routes through the gateway; in-flight counts are taken for every policy, not only cache_aware. */
class PolicyRoutingTest {

    @RegisterExtension
    static final FakeWorker a = FakeWorker.start("m");
    @RegisterExtension
    static final FakeWorker b = FakeWorker.start("m");

    static List<String> policies() {
        return PolicyFactory.NAMES;
    }

    @ParameterizedTest
    @MethodSource("policies")
    void everyPolicyServesRequestsAndReleasesEverySlot(String policy) {
        try (RunningGateway gateway = RunningGateway.start(List.of(a, b), policy)) {
            for (int i = 0; i < 10; i++) {
                HttpResponse<String> response = gateway.post("/v1/chat/completions",
                        "{\"messages\":[{\"role\":\"user\",\"content\":\"question " + i + "\"}]}",
                        "x-smg-routing-key", "session-" + i);
                assertThat(response.statusCode()).isEqualTo(200);
            }
            assertThat(gateway.gateway().registry().pools().iterator().next().policy().name()).isEqualTo(policy);
            gateway.awaitNothingInFlight();
        }
    }

    @Test
    void roundRobinSpreadsRequestsOverBothWorkers() {
        try (RunningGateway gateway = RunningGateway.start(List.of(a, b), "round_robin")) {
            Set<String> served = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                served.add(gateway.post("/generate", "{\"text\":\"t\"}").headers().firstValue("x-worker").orElseThrow());
            }
            assertThat(served).containsExactlyInAnyOrder(a.url(), b.url());
        }
    }

    @Test
    void consistentHashingTakesEmptyRoutingHeadersForMissingOnes() {
        try (RunningGateway gateway = RunningGateway.start(List.of(a, b), "consistent_hashing")) {
            // An empty target is no target (not a refusal), and an empty key is no key: requests spread at random
            // instead of all hashing "" to one worker.
            Set<String> served = new HashSet<>();
            for (int i = 0; i < 40 && served.size() < 2; i++) {
                HttpResponse<String> response = gateway.post("/generate", "{\"text\":\"t\"}",
                        "x-smg-target-worker", "", "x-smg-routing-key", "", "authorization", "");
                assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
                served.add(response.headers().firstValue("x-worker").orElseThrow());
            }
            assertThat(served).containsExactlyInAnyOrder(a.url(), b.url());
        }
    }

    @Test
    void cacheAwareSendsTheNextTurnOfAConversationToTheWorkerThatServedTheLastOne() {
        try (RunningGateway gateway = RunningGateway.start(List.of(a, b), "cache_aware")) {
            for (int c = 0; c < 6; c++) {
                String system = "{\"role\":\"system\",\"content\":\"You are assistant number " + c
                        + " and you answer questions about topic " + c + " in detail.\"}";
                String turn1 = "{\"messages\":[" + system + ",{\"role\":\"user\",\"content\":\"First question of "
                        + "conversation " + c + "?\"}]}";
                String first = gateway.post("/v1/chat/completions", turn1).headers().firstValue("x-worker")
                        .orElseThrow();
                String turn2 = "{\"messages\":[" + system + ",{\"role\":\"user\",\"content\":\"First question of "
                        + "conversation " + c + "?\"},{\"role\":\"assistant\",\"content\":\"Hello\"},"
                        + "{\"role\":\"user\",\"content\":\"And a follow-up?\"}]}";
                String second = gateway.post("/v1/chat/completions", turn2).headers().firstValue("x-worker")
                        .orElseThrow();
                assertThat(second).as("conversation %d", c).isEqualTo(first);
            }
        }
    }
}
