package dev.homing.gateway.workers;

import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.http.HttpResponse;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Several models behind one gateway: each request goes by its model field, each model has its own policy. */
class ModelRoutingTest {

    @RegisterExtension
    static final FakeWorker llama = FakeWorker.start("llama");
    @RegisterExtension
    static final FakeWorker qwen = FakeWorker.start("qwen");
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        gateway = RunningGateway.start(List.of(llama, qwen), "cache_aware");
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void aRequestGoesToAWorkerOfItsModel() {
        HttpResponse<String> response = gateway.post("/v1/completions", "{\"model\":\"qwen\",\"prompt\":\"x\"}");

        assertThat(response.headers().firstValue("x-worker")).hasValue(qwen.url());
    }

    @Test
    void aRequestWithoutAModelIsRefusedListingTheModels() {
        HttpResponse<String> response = gateway.post("/v1/completions", "{\"prompt\":\"x\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("llama, qwen");
    }

    @Test
    void aRequestForAnUnknownModelIsRefusedListingTheModels() {
        HttpResponse<String> response = gateway.post("/v1/completions", "{\"model\":\"gpt\",\"prompt\":\"x\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("gpt").contains("llama, qwen");
    }

    @Test
    void eachModelHasItsOwnPolicyInstance() {
        var pools = gateway.gateway().registry().pools();

        assertThat(pools).hasSize(2);
        assertThat(pools.stream().map(ModelPool::policy).distinct()).hasSize(2);
    }

    @Test
    void modelsListsBoth() {
        assertThat(gateway.get("/v1/models").body()).contains("\"id\":\"llama\"").contains("\"id\":\"qwen\"");
    }
}
