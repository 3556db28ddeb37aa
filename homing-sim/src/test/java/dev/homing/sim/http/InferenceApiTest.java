package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

/** The inference endpoints over real HTTP, with and without streaming. */
class InferenceApiTest {
    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.atTimeScale(1000);

    @Test
    void chatAnswersInTheOpenAiShapeWithUsage() {
        JsonNode answer = engine.postJson("/v1/chat/completions", chat("Tell me about Lisbon.", 12, false, false));

        assertThat(answer.path("object").stringValue()).isEqualTo("chat.completion");
        assertThat(answer.at("/choices/0/message/role").stringValue()).isEqualTo("assistant");
        assertThat(answer.at("/choices/0/finish_reason").stringValue()).isEqualTo("length");
        assertThat(answer.at("/usage/completion_tokens").intValue()).isEqualTo(12);
        assertThat(answer.at("/usage/prompt_tokens").intValue()).isPositive();
        assertThat(answer.at("/usage/prompt_tokens_details/cached_tokens").isIntegralNumber()).isTrue();
        assertThat(answer.at("/choices/0/message/content").stringValue().split(" ")).hasSize(12);
    }

    @Test
    void chatStreamsTheSameTextAsTheWholeAnswerThenUsageThenDone() {
        String whole = engine.postJson("/v1/chat/completions", chat("Tell me about Porto.", 10, false, false))
            .at("/choices/0/message/content").stringValue();

        HttpResponse<String> response = engine.post("/v1/chat/completions",
            chat("Tell me about Porto.", 10, true, true));
        ServerSentEvents events = ServerSentEvents.parse(response.body());
        List<JsonNode> chunks = events.json();

        assertThat(response.headers().firstValue("content-type")).hasValue("text/event-stream");
        assertThat(events.endsWithDone()).isTrue();
        assertThat(chunks.getFirst().at("/choices/0/delta/role").stringValue()).isEqualTo("assistant");
        assertThat(chunks.stream().filter(c -> !c.path("choices").isEmpty())
            .map(c -> c.at("/choices/0/delta/content").asString("")).collect(Collectors.joining()))
            .isEqualTo(whole);
        JsonNode usage = chunks.getLast();
        assertThat(usage.path("choices").isEmpty()).isTrue();
        assertThat(usage.at("/usage/completion_tokens").intValue()).isEqualTo(10);
        assertThat(usage.at("/usage/prompt_tokens_details/cached_tokens").intValue()).isPositive();
    }

    @Test
    void chatStreamsWithoutAUsageChunkUnlessAsked() {
        List<JsonNode> chunks = ServerSentEvents.parse(engine.post("/v1/chat/completions",
            chat("Tell me about Faro.", 5, true, false)).body()).json();

        assertThat(chunks).noneMatch(chunk -> chunk.has("usage"));
        assertThat(chunks.getLast().at("/choices/0/finish_reason").stringValue()).isEqualTo("length");
    }

    @Test
    void completionsAnswerWholeOrStreamedWithTheSameText() {
        String body = "{\"prompt\":\"Once upon a time\",\"max_tokens\":8%s}";
        JsonNode whole = engine.postJson("/v1/completions", body.formatted(""));
        ServerSentEvents events = ServerSentEvents.parse(engine.post("/v1/completions",
            body.formatted(",\"stream\":true,\"stream_options\":{\"include_usage\":true}")).body());

        assertThat(whole.path("object").stringValue()).isEqualTo("text_completion");
        assertThat(whole.at("/usage/completion_tokens").intValue()).isEqualTo(8);
        assertThat(events.endsWithDone()).isTrue();
        assertThat(events.json().stream().filter(c -> !c.path("choices").isEmpty())
            .map(c -> c.at("/choices/0/text").stringValue()).collect(Collectors.joining()))
            .isEqualTo(whole.at("/choices/0/text").stringValue());
        assertThat(events.json().getLast().at("/usage/prompt_tokens").intValue())
            .isEqualTo(whole.at("/usage/prompt_tokens").intValue());
    }

    @Test
    void generateAnswersWithSglangMetaInfo() {
        JsonNode answer = engine.postJson("/generate",
            "{\"text\":\"The capital of France is\",\"sampling_params\":{\"max_new_tokens\":6}}");

        assertThat(answer.at("/meta_info/prompt_tokens").intValue()).isEqualTo(6);
        assertThat(answer.at("/meta_info/completion_tokens").intValue()).isEqualTo(6);
        assertThat(answer.at("/meta_info/cached_tokens").isIntegralNumber()).isTrue();
        assertThat(answer.at("/meta_info/finish_reason/type").stringValue()).isEqualTo("length");
        assertThat(answer.path("text").stringValue().split(" ")).hasSize(6);
    }

    @Test
    void generateStreamsTheCumulativeTextThenDone() {
        String request = "{\"text\":\"Write a haiku about rain\",\"sampling_params\":{\"max_new_tokens\":5}%s}";
        String whole = engine.postJson("/generate", request.formatted("")).path("text").stringValue();

        ServerSentEvents events = ServerSentEvents.parse(engine.post("/generate",
            request.formatted(",\"stream\":true")).body());

        assertThat(events.endsWithDone()).isTrue();
        assertThat(events.json()).hasSize(5);
        assertThat(events.json().getLast().path("text").stringValue()).isEqualTo(whole);
        assertThat(events.json().getLast().at("/meta_info/completion_tokens").intValue()).isEqualTo(5);
    }

    @Test
    void generateAcceptsTokenIds() {
        JsonNode answer = engine.postJson("/generate",
            "{\"input_ids\":[1,2,3,4,5,6,7],\"sampling_params\":{\"max_new_tokens\":2}}");

        assertThat(answer.at("/meta_info/prompt_tokens").intValue()).isEqualTo(7);
    }

    @Test
    void aRequestWithoutALimitGetsTheDefaultLength() {
        JsonNode answer = engine.postJson("/v1/completions", "{\"prompt\":\"Count to ten\"}");

        assertThat(answer.at("/usage/completion_tokens").intValue()).isEqualTo(RequestParser.DEFAULT_MAX_NEW_TOKENS);
    }

    @Test
    void aRepeatedPromptIsServedFromTheCacheButItsLastToken() {
        String request = "{\"text\":\"" + "lorem ipsum ".repeat(50) + "\",\"sampling_params\":{\"max_new_tokens\":1}}";
        JsonNode first = engine.postJson("/generate", request);
        JsonNode second = engine.postJson("/generate", request);

        assertThat(first.at("/meta_info/cached_tokens").intValue()).isZero();
        assertThat(second.at("/meta_info/cached_tokens").intValue())
            .isEqualTo(second.at("/meta_info/prompt_tokens").intValue() - 1);
    }

    @Test
    void aCachedPromptTakesLessVirtualTimeThanAColdOne() {
        String request = "{\"text\":\"" + "long shared context ".repeat(400)
            + "\",\"sampling_params\":{\"max_new_tokens\":1}}";
        double cold = engine.postJson("/generate", request).at("/meta_info/e2e_latency").doubleValue();
        double warm = engine.postJson("/generate", request).at("/meta_info/e2e_latency").doubleValue();

        assertThat(warm).isLessThan(cold / 2);
    }

    @Test
    void metricsCountTheCachedPromptTokens() {
        String request = "{\"prompt\":\"" + "count me in ".repeat(20) + "\",\"max_tokens\":1}";
        engine.postJson("/v1/completions", request);
        int cached = engine.postJson("/v1/completions", request).at("/usage/prompt_tokens_details/cached_tokens")
            .intValue();

        String metrics = engine.get("/metrics").body();

        double total = metrics.lines().filter(line -> line.startsWith("sglang:cached_tokens_total{"))
            .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
        assertThat(total).isGreaterThanOrEqualTo(cached).isPositive();
    }

    @Test
    void responsesAnswerWithOutputTextAndUsage() {
        JsonNode answer = engine.postJson("/v1/responses", "{\"input\":\"Say hello\",\"max_output_tokens\":3}");

        assertThat(answer.path("object").stringValue()).isEqualTo("response");
        assertThat(answer.at("/output/0/content/0/type").stringValue()).isEqualTo("output_text");
        assertThat(answer.at("/usage/output_tokens").intValue()).isEqualTo(3);
    }

    @Test
    void responsesStreamTextDeltasThenTheCompletedResponse() {
        ServerSentEvents events = ServerSentEvents.parse(engine.post("/v1/responses",
            "{\"input\":\"Say hello\",\"max_output_tokens\":4,\"stream\":true}").body());
        List<JsonNode> data = events.json();

        assertThat(data.getFirst().path("type").stringValue()).isEqualTo("response.created");
        assertThat(data.stream().filter(d -> d.path("type").stringValue().equals("response.output_text.delta")))
            .hasSize(4);
        assertThat(data.getLast().path("type").stringValue()).isEqualTo("response.completed");
        assertThat(data.getLast().at("/response/usage/output_tokens").intValue()).isEqualTo(4);
    }

    private static String chat(String question, int maxTokens, boolean stream, boolean includeUsage) {
        return """
            {"model":"m","max_tokens":%d,"stream":%s,"stream_options":{"include_usage":%s},
             "messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"%s"}]}
            """.formatted(maxTokens, stream, includeUsage, question);
    }
}
