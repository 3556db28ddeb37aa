package dev.homing.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Prefill/decode live (issue 17, target 2): two simulated prefill engines and two decode engines behind the gateway.
 * A conversation's later turns report the prompt tokens the prefill engine had cached; long prompts with one output
 * token (the reference's PR #27547 case) spread over the prefill engines; a prefill engine killed under load loses
 * no request and duplicates none.
 */
class PrefillDecodeIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(120);

    @RegisterExtension
    final ProcessFleet fleet = new ProcessFleet("prefill-decode");

    /** Two prefill and two decode engines, {@code timeScale} times faster than real time, and their gateway. */
    private Pairs pairs(String timeScale, String... gatewayFlags) {
        List<EngineProcess> prefills = IntStream.range(0, 2).mapToObj(i -> fleet.engine("prefill-" + i,
                ProcessFleet.ENGINE_JVM, "--disaggregation-mode", "prefill", "--disaggregation-bootstrap-port", "0",
                "--time-scale", timeScale, "--seed", Integer.toString(i))).toList();
        List<EngineProcess> decodes = IntStream.range(0, 2).mapToObj(i -> fleet.engine("decode-" + i,
                ProcessFleet.ENGINE_JVM, "--disaggregation-mode", "decode", "--time-scale", timeScale,
                "--seed", Integer.toString(10 + i))).toList();
        GatewayProcess gateway = fleet.pdGateway("512m", prefills, decodes, gatewayFlags);
        fleet.awaitReady(gateway, 4);
        return new Pairs(prefills, decodes, gateway);
    }

    private record Pairs(List<EngineProcess> prefills, List<EngineProcess> decodes, GatewayProcess gateway) {
    }

    @Test
    void laterTurnsOfAConversationReportThePromptTokensThePrefillEngineHadCached() throws Exception {
        Pairs pairs = pairs("10");
        String url = pairs.gateway().url() + Requests.CHAT;
        List<Long> laterTurnsCached = new ArrayList<>();
        long laterTurnsPrompt = 0;
        try (FaultClient client = new FaultClient(Duration.ofSeconds(60))) {
            for (int conversation = 0; conversation < 4; conversation++) {
                StringBuilder messages = new StringBuilder("{\"role\":\"system\",\"content\":\"conversation "
                        + conversation + ": " + "you answer questions about the history of tea. ".repeat(40) + "\"}");
                for (int turn = 0; turn < 4; turn++) {
                    messages.append(",{\"role\":\"user\",\"content\":\"question ").append(turn).append("\"}");
                    Answer answer = client.post(url, "turn-" + conversation + "-" + turn,
                            "{\"messages\":[" + messages + "],\"max_tokens\":16}", false);
                    assertThat(answer.outcome()).isEqualTo(Answer.Outcome.SUCCEEDED);
                    JsonNode body = JSON.readTree(answer.body());
                    JsonNode usage = body.path("usage");
                    if (turn > 0) {
                        laterTurnsCached.add(usage.path("prompt_tokens_details").path("cached_tokens").asLong());
                        laterTurnsPrompt += usage.path("prompt_tokens").asLong();
                    }
                    String reply = body.path("choices").path(0).path("message").path("content").asString();
                    messages.append(",{\"role\":\"assistant\",\"content\":").append(JSON.writeValueAsString(reply))
                            .append('}');
                }
            }
        }

        assertThat(laterTurnsCached).as("cached prompt tokens of every later turn").allMatch(cached -> cached > 0);
        assertThat(laterTurnsCached.stream().mapToLong(Long::longValue).sum())
                .as("later turns' cached share of their prompt").isGreaterThan(laterTurnsPrompt / 2);
    }

    @Test
    void longPromptsWithOneOutputTokenSpreadOverThePrefillEngines() throws Exception {
        Pairs pairs = pairs("10", "--prefill-policy", "cache_aware");
        String url = pairs.gateway().url() + Requests.GENERATE;
        // 32,000 tokens of four characters; each prompt's own number first, so no two share a cached prefix.
        String filler = "abcd".repeat(32_000);
        try (FaultClient client = new FaultClient(Duration.ofSeconds(60))) {
            List<Answer> answers = LoadRun.start(8, 40, i -> client.post(url, "long-" + i, "{\"text\":\"" + i + " "
                    + filler + "\",\"sampling_params\":{\"max_new_tokens\":1}}", false)).join(LOAD_TIMEOUT);
            assertThat(answers).allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
        }

        // A prefill leg may end after its pair's answer; it counts its usage in the step that counts its answer.
        fleet.awaitOutcome("every prefill answer counted", LOAD_TIMEOUT).until(() -> pairs.gateway()
                .metrics(fleet.control()).sum("smg_pd_prefill_duration_seconds_count") >= 40);
        PrometheusText metrics = pairs.gateway().metrics(fleet.control());
        List<Double> computed = pairs.prefills().stream().map(engine -> metrics.sum("homing_prompt_tokens_total",
                "worker", engine.url()) - metrics.sum("homing_cached_tokens_total", "worker", engine.url())).toList();
        double mean = computed.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        double max = computed.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        assertThat(max / mean).as("prefill load max/mean over %s", computed).isLessThanOrEqualTo(1.3);
    }

    @Test
    void killingAPrefillEngineUnderLoadLosesNoRequestAndDuplicatesNone() throws Exception {
        Pairs pairs = pairs("2", "--cb-timeout-duration-secs", "2", "--request-timeout-secs", "60");
        EngineProcess victim = pairs.prefills().get(1);
        String url = pairs.gateway().url() + Requests.CHAT;
        // Prompts of about 4,000 tokens: a prefill runs long enough for the kill to find some under way.
        String context = "the tea trade of the eighteenth century. ".repeat(400);
        try (FaultClient client = new FaultClient(Duration.ofSeconds(60));
             FaultClient streamClient = new FaultClient(Duration.ofSeconds(60))) {
            LoadRun plain = LoadRun.start(4, 200, i -> client.post(url, "pd-plain-" + i,
                    Requests.chat("plain " + i + " " + context, 8, false), false));
            LoadRun streams = LoadRun.start(8, 32, i -> streamClient.post(url, "pd-stream-" + i,
                    Requests.chat("stream " + i + " " + context, 300, true), true));
            fleet.awaitOutcome("prefills under way on the victim", LOAD_TIMEOUT).until(() -> pairs.gateway()
                    .metrics(fleet.control()).sum("smg_worker_requests_active", "worker", victim.url()) >= 2);
            victim.kill();
            List<Answer> plainAnswers = plain.join(LOAD_TIMEOUT);
            List<Answer> streamAnswers = streams.join(LOAD_TIMEOUT);

            AnsweredIds answered = AnsweredIds.of(pairs.decodes());
            assertThat(plainAnswers).as("every plain request succeeds, its pair retried if need be")
                    .allMatch(a -> a.outcome() == Answer.Outcome.SUCCEEDED);
            assertThat(streamAnswers).as("no stream lost or cut silently")
                    .noneMatch(a -> a.outcome() == Answer.Outcome.LOST);
            List<Answer> cut = streamAnswers.stream().filter(Answer::streamCutWithErrorEvent).toList();
            assertThat(cut).as("a cut stream is not run again elsewhere")
                    .allMatch(a -> answered.timesAnswered(a.requestId()) == 0);
            assertThat(answered.duplicated()).as("requests a decode engine answered twice").isEmpty();
            List<Answer> all = new ArrayList<>(plainAnswers);
            all.addAll(streamAnswers);
            FaultFigures.record(new FaultFigures.Row("6", "Kill 1 of 2 prefill engines (2 prefill + 2 decode) under "
                    + "load (" + cut.size() + " streams cut)", all, answered.duplicated().size(), null));
        }
    }
}
