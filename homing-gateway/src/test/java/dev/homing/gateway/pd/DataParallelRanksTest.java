package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.workers.Worker;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** {@code --dp-aware}: each data-parallel rank of an engine is a worker of its own, told its rank in the body. */
class DataParallelRanksTest {

    private static final JsonMapper JSON = JsonMapper.shared();

    private FakeWorker engine;
    private RunningGateway gateway;

    @BeforeEach
    void start() {
        engine = FakeWorker.start("m");
        gateway = RunningGateway.start(RunningGateway.config(List.of()).with(Settings.DP_AWARE, true)
                .with(Settings.POLICY, "cache_aware")
                .with(Settings.WORKER_URLS, List.of(engine.url() + "@0", engine.url() + "@1", engine.url() + "@2")));
    }

    @AfterEach
    void stop() {
        gateway.close();
        engine.close();
    }

    @Test
    void eachRankIsAWorkerOfItsOwnAtTheEnginesAddress() {
        List<Worker> ranks = List.of(worker(0), worker(1), worker(2));

        assertThat(ranks).extracting(Worker::dpRank).containsExactly(0, 1, 2);
        assertThat(ranks).extracting(Worker::id).doesNotHaveDuplicates();
        assertThat(ranks).extracting(w -> w.target().port()).containsOnly(engine.port());
        assertThat(gateway.gateway().breakers().of(worker(0).id()))
                .isNotSameAs(gateway.gateway().breakers().of(worker(1).id()));
    }

    @Test
    void aRequestTellsTheEngineItsRankWithTheRestOfTheBodyAsSent() {
        String body = "{\"text\":\"hello\",\"sampling_params\":{\"max_new_tokens\":4}}";

        HttpResponse<String> response = gateway.post("/generate", body);

        assertThat(response.statusCode()).isEqualTo(200);
        String sent = new String(engine.received().getFirst().body(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(sent).matches("\\{\"data_parallel_rank\":[012]," + java.util.regex.Pattern.quote(body.substring(1)));
    }

    @Test
    void aBodyThatSetsTheRankItselfIsRefused() {
        HttpResponse<String> response = gateway.post("/generate", "{\"text\":\"a\",\"data_parallel_rank\":1}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("'data_parallel_rank' is set by the gateway");
        assertThat(engine.received()).isEmpty();
    }

    @Test
    void aRankAddedThroughTheWorkerApiIsShownWithItsRank() {
        HttpResponse<String> added = gateway.post("/workers", "{\"url\":\"" + engine.url() + "@3\"}");

        assertThat(added.statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(30)).until(() -> worker(3) != null && worker(3).available());
        assertThat(JSON.readTree(gateway.get("/workers/" + worker(3).id()).body()).path("dp_rank").asInt())
                .isEqualTo(3);
    }

    private Worker worker(int rank) {
        return gateway.gateway().registry().find(engine.url() + "@" + rank);
    }
}
