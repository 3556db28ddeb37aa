package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.model.EngineConfig;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/** Health, information, load, metrics and the minimal non-generation endpoints. */
class ServiceEndpointsTest {
    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.of(withKvTokens(123_456));

    private static SimEngineOptions withKvTokens(int kvTokens) {
        SimEngineOptions fast = SimEngineOptions.defaults().withTimeScale(1000);
        return new SimEngineOptions(fast.host(), fast.port(), fast.modelName(), fast.timeScale(),
            EngineConfig.DEFAULTS.withKvTokens(kvTokens), fast.faults(), null);
    }

    @Test
    void healthAndHealthGenerateAnswer200() {
        assertThat(engine.get("/health").statusCode()).isEqualTo(200);
        assertThat(engine.get("/health_generate").statusCode()).isEqualTo(200);
    }

    @Test
    void theModelListAndTheModelInfoNameTheServedModel() {
        assertThat(engine.getJson("/v1/models").at("/data/0/id").stringValue())
            .isEqualTo(SimEngineOptions.DEFAULT_MODEL);
        assertThat(engine.getJson("/get_model_info").path("model_path").stringValue())
            .isEqualTo(SimEngineOptions.DEFAULT_MODEL);
    }

    @Test
    void serverInfoReportsTheKvCapacityInTokens() {
        JsonNode info = engine.getJson("/get_server_info");

        assertThat(info.path("max_total_num_tokens").intValue()).isEqualTo(123_456);
        assertThat(info.path("page_size").intValue()).isEqualTo(1);
    }

    @Test
    void loadIsAnArrayOfRanksWithTokensInUse() {
        engine.postJson("/generate", "{\"text\":\"" + "warm ".repeat(40) + "\",\"sampling_params\":{\"max_new_tokens\":1}}");

        JsonNode load = engine.getJson("/get_load");

        assertThat(load.isArray()).isTrue();
        assertThat(load.at("/0/num_tokens").intValue()).isPositive();
        assertThat(load.at("/0/num_reqs").isIntegralNumber()).isTrue();
    }

    @Test
    void metricsUseSglangNames() {
        engine.postJson("/v1/completions", "{\"prompt\":\"metrics please\",\"max_tokens\":3}");

        String metrics = engine.get("/metrics").body();

        assertThat(metrics).contains("sglang:cache_hit_rate", "sglang:prompt_tokens_total",
            "sglang:cached_tokens_total", "sglang:generation_tokens_total", "sglang:num_running_reqs",
            "sglang:num_queue_reqs", "sglang:token_usage", "sglang:gen_throughput",
            "sglang:time_to_first_token_seconds_bucket", "sglang:e2e_request_latency_seconds_count");
    }

    @Test
    void flushCacheEmptiesTheCacheWhenIdle() {
        String request = "{\"text\":\"" + "flush me ".repeat(30) + "\",\"sampling_params\":{\"max_new_tokens\":1}}";
        engine.postJson("/generate", request);

        assertThat(engine.post("/flush_cache", "").statusCode()).isEqualTo(200);

        assertThat(engine.postJson("/generate", request).at("/meta_info/cached_tokens").intValue()).isZero();
    }

    @Test
    void embeddingsAreDeterministicUnitVectors() {
        String request = "{\"input\":[\"alpha\",\"beta\"]}";
        JsonNode first = engine.postJson("/v1/embeddings", request);
        JsonNode again = engine.postJson("/v1/embeddings", request);

        assertThat(first.path("data")).hasSize(2);
        assertThat(first.at("/data/0/embedding")).isEqualTo(again.at("/data/0/embedding"));
        assertThat(first.at("/data/0/embedding")).isNotEqualTo(first.at("/data/1/embedding"));
        double norm = 0;
        for (JsonNode value : first.at("/data/0/embedding")) {
            norm += value.doubleValue() * value.doubleValue();
        }
        assertThat(norm).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void base64EmbeddingsAreTheSameVectorAsLittleEndianFloat32() {
        JsonNode floats = engine.postJson("/v1/embeddings", "{\"input\":\"alpha\",\"encoding_format\":\"float\"}");
        JsonNode base64 = engine.postJson("/v1/embeddings", "{\"input\":\"alpha\",\"encoding_format\":\"base64\"}");

        JsonNode vector = floats.at("/data/0/embedding");
        assertThat(base64.at("/data/0/embedding").isString()).isTrue();
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64.at("/data/0/embedding").stringValue()))
            .order(ByteOrder.LITTLE_ENDIAN);
        assertThat(bytes.remaining()).isEqualTo(vector.size() * Float.BYTES);
        for (JsonNode value : vector) {
            assertThat(bytes.getFloat()).isEqualTo((float) value.doubleValue());
        }
        assertThat(base64.path("usage")).isEqualTo(floats.path("usage"));
    }

    @Test
    void rerankPutsTheDocumentSharingMostQueryWordsFirst() {
        JsonNode ranked = engine.postJson("/v1/rerank",
            "{\"query\":\"red fast car\",\"documents\":[\"a blue boat\",\"a red fast car\",\"a red hat\"]}");

        assertThat(ranked.at("/0/index").intValue()).isEqualTo(1);
        assertThat(ranked).hasSize(3);
    }

    @Test
    void classifyGivesOneLabelPerInput() {
        JsonNode classes = engine.postJson("/v1/classify", "{\"input\":[\"good\",\"bad\"]}");

        assertThat(classes.path("data")).hasSize(2);
        assertThat(classes.at("/data/0/label").stringValue()).startsWith("LABEL_");
    }
}
