package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** An engine of four data-parallel ranks behind one port: each its own cache, picked by rank or in turn. */
class DataParallelEngineTest {
    private static SimEngineServer engine;
    private static SimEngineClient client;

    @BeforeAll
    static void start() {
        engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(1000).withDpSize(4));
        client = new SimEngineClient(engine);
    }

    @AfterAll
    static void stop() {
        engine.close();
    }

    private static int cachedTokens(String text, String rank) {
        JsonNode answer = client.postJson("/generate", "{\"text\":\"" + text + "\",\"sampling_params\":"
            + "{\"max_new_tokens\":2}" + (rank == null ? "" : ",\"data_parallel_rank\":" + rank) + "}");
        return answer.at("/meta_info/cached_tokens").intValue();
    }

    @Test
    void aRequestForOneRankFindsWhatThatRankCached() {
        String text = "Rank two keeps this long enough prefix in its own cache. ".repeat(8);
        cachedTokens(text, "2");

        assertThat(cachedTokens(text, "2")).isGreaterThan(text.length() / 4 - 2);
    }

    @Test
    void withoutARankTheRanksTakeRequestsInTurnEachWithItsOwnCache() {
        String text = "Round robin spreads the same prompt over every rank. ".repeat(8);
        int[] hits = new int[5];
        for (int i = 0; i < hits.length; i++) {
            hits[i] = cachedTokens(text, null);
        }

        // Four ranks, four misses; the fifth request is the first rank's again.
        assertThat(hits[0]).isZero();
        assertThat(hits[1] + hits[2] + hits[3]).isZero();
        assertThat(hits[4]).isGreaterThan(text.length() / 4 - 2);
    }

    @Test
    void aRankOutOfRangeIsA400() {
        HttpResponse<String> response = client.post("/generate",
            "{\"text\":\"hi\",\"data_parallel_rank\":4}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("'data_parallel_rank' 4 is out of range: this engine has 4 ranks (0..3)");
    }

    @Test
    void serverInfoAndLoadReportEveryRank() {
        JsonNode info = SimEngineClient.JSON.readTree(client.get("/get_server_info").body());
        JsonNode load = SimEngineClient.JSON.readTree(client.get("/get_load").body());

        assertThat(info.path("dp_size").intValue()).isEqualTo(4);
        assertThat(info.path("internal_states")).hasSize(4);
        assertThat(load).hasSize(4);
        for (int rank = 0; rank < 4; rank++) {
            assertThat(load.get(rank).path("dp_rank").intValue()).isEqualTo(rank);
            assertThat(load.get(rank).has("num_tokens")).isTrue();
        }
    }

    @Test
    void theMetricsCountTheRanksTogether() {
        String text = "Counted once per rank, summed in the metrics.";
        cachedTokens(text, "0");
        cachedTokens(text, "1");

        String metrics = client.get("/metrics").body();

        String pool = metrics.lines().filter(line -> line.startsWith("sglang:max_total_num_tokens{")).findFirst()
            .orElseThrow();
        assertThat(Double.parseDouble(pool.substring(pool.lastIndexOf(' ') + 1))).isEqualTo(4 * 400_000.0);
    }
}
