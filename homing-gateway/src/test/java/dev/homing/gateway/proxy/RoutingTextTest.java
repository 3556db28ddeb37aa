package dev.homing.gateway.proxy;

import dev.homing.core.request.RoutingTextBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoutingTextTest {

    private static SniffedRequest sniff(InferenceRoute route, String json) throws BadRequestException {
        return RoutingText.sniff(route, json.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(InferenceRoute route, String json) throws BadRequestException {
        return sniff(route, json).routingText();
    }

    @Test
    void modelAndStreamAreRead() throws Exception {
        SniffedRequest r = sniff(InferenceRoute.CHAT,
                "{\"model\":\"m1\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");

        assertThat(r.model()).isEqualTo("m1");
        assertThat(r.stream()).isTrue();
    }

    @Test
    void absentModelAndStreamAreNullAndFalse() throws Exception {
        SniffedRequest r = sniff(InferenceRoute.GENERATE, "{\"text\":\"x\"}");

        assertThat(r.model()).isNull();
        assertThat(r.stream()).isFalse();
    }

    @Test
    void generateMatchesItsText() throws Exception {
        assertThat(text(InferenceRoute.GENERATE, "{\"text\":\"Once upon\",\"sampling_params\":{\"a\":1}}"))
                .isEqualTo("Once upon");
    }

    @Test
    void generateJoinsABatchOfTextsWithSpaces() throws Exception {
        assertThat(text(InferenceRoute.GENERATE, "{\"text\":[\"a b\",\"c\"]}")).isEqualTo("a b c");
    }

    @Test
    void generateWithoutTextMatchesTokenIdsAsDecimals() throws Exception {
        assertThat(text(InferenceRoute.GENERATE, "{\"input_ids\":[[1,2],[3]]}")).isEqualTo("1 2 3");
    }

    @Test
    void chatRendersEachMessageWithItsRole() throws Exception {
        assertThat(text(InferenceRoute.CHAT, """
                {"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"},
                 {"role":"assistant","content":"Hello","reasoning_content":"greet"}]}"""))
                .isEqualTo("<|system|>Be brief.<|user|>Hi<|assistant|>Hellogreet");
    }

    @Test
    void chatTakesTheTextPartsOfMultimodalContent() throws Exception {
        assertThat(text(InferenceRoute.CHAT, """
                {"messages":[{"role":"user","content":[{"type":"text","text":"Look: "},
                 {"type":"image_url","image_url":{"url":"data:..."}},{"type":"text","text":"what?"}]}]}"""))
                .isEqualTo("<|user|>Look: what?");
    }

    @Test
    void chatPutsTheToolDefinitionsFirstAsTheyWereSent() throws Exception {
        assertThat(text(InferenceRoute.CHAT,
                "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"tools\":[{\"type\":\"function\"}]}"))
                .isEqualTo("<|tools|>[{\"type\":\"function\"}]<|user|>hi");
    }

    @Test
    void conversationsThatDifferOnlyInRolesDoNotCollide() throws Exception {
        String asUser = text(InferenceRoute.CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        String asSystem = text(InferenceRoute.CHAT, "{\"messages\":[{\"role\":\"system\",\"content\":\"x\"}]}");

        assertThat(asUser).isNotEqualTo(asSystem);
    }

    /** Completions match the prompt (a list joined by spaces), embeddings and classify the input, rerank the query. */
    @ParameterizedTest(name = "{0} {1} matches \"{2}\"")
    @CsvSource(delimiter = '|', textBlock = """
            COMPLETIONS   | {"prompt":"p"}                        | p
            COMPLETIONS   | {"prompt":["p","q"]}                  | p q
            EMBEDDINGS    | {"input":["a","b"]}                   | a b
            CLASSIFY      | {"input":"c"}                         | c
            RERANK        | {"query":"q","documents":["d1","d2"]} | q
            RERANK_LEGACY | {"query":"q"}                         | q
            """)
    void theOtherRoutesMatchTheFieldTheyAreAbout(InferenceRoute route, String body, String expected) throws Exception {
        assertThat(text(route, body)).isEqualTo(expected);
    }

    @Test
    void responsesMatchInstructionsThenInputItems() throws Exception {
        assertThat(text(InferenceRoute.RESPONSES, """
                {"instructions":"Be kind.","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}]}]}"""))
                .isEqualTo("<|system|>Be kind.<|user|>hi");
        assertThat(text(InferenceRoute.RESPONSES, "{\"input\":\"plain\"}")).isEqualTo("plain");
    }

    @Test
    void malformedJsonIsRefused() {
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "{\"messages\": [")).isInstanceOf(
                BadRequestException.class).hasMessageContaining("malformed JSON");
    }

    @Test
    void trailingContentIsRefused() {
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "{} {}")).isInstanceOf(BadRequestException.class);
    }

    @Test
    void aBodyThatIsNotAnObjectIsRefused() {
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "[1]")).isInstanceOf(BadRequestException.class)
                .hasMessageContaining("JSON object");
    }

    @Test
    void fieldsOfTheWrongTypeAreRefused() {
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "{\"model\":3}")).hasMessageContaining("model");
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "{\"messages\":{}}")).hasMessageContaining("messages");
        assertThatThrownBy(() -> sniff(InferenceRoute.CHAT, "{\"messages\":[{\"content\":5}]}"))
                .hasMessageContaining("content");
        assertThatThrownBy(() -> sniff(InferenceRoute.COMPLETIONS, "{\"prompt\":{}}")).hasMessageContaining("prompt");
    }

    @Test
    void unknownFieldsAreSkippedWhateverTheirShape() throws Exception {
        assertThat(text(InferenceRoute.CHAT, """
                {"x":{"deep":[{"a":[1,{"b":null}]}]},"messages":[{"role":"user","content":"hi","name":"n"}],"y":1}"""))
                .isEqualTo("<|user|>hi");
    }

    @Test
    void aBufferIsSniffedInPlaceWithToolsSlicedFromTheRightBytes() throws Exception {
        String json = "{\"model\":\"m\",\"tools\":[{\"type\":\"function\",\"name\":\"é\"}],"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
        // A slice that starts inside its array, as a body read in chunks may.
        io.vertx.core.buffer.Buffer slice = io.vertx.core.buffer.Buffer.buffer("garbage" + json + "tail")
                .slice(7, 7 + json.getBytes(StandardCharsets.UTF_8).length);

        SniffedRequest fromBuffer = RoutingText.sniff(InferenceRoute.CHAT, slice);

        assertThat(fromBuffer).isEqualTo(sniff(InferenceRoute.CHAT, json));
        assertThat(fromBuffer.routingText()).startsWith("<|tools|>[{\"type\":\"function\",\"name\":\"é\"}]");
    }

    @Test
    void aPromptLongerThanTheRoutingTextIsCutToItsFirstMillionCharacters() throws Exception {
        // Plain, two-byte, four-byte (a surrogate pair) and escaped characters, over and over past the bound.
        String piece = "ab\u00e9\uD83D\uDE00\\n\\\"\\u0041\\uD83D\\uDE00";
        String json = "{\"prompt\":\"" + piece.repeat(RoutingTextBuilder.MAX_CHARS / 6) + "\"}";
        String whole = JsonMapper.shared().readTree(json).path("prompt").asString();

        String routed = text(InferenceRoute.COMPLETIONS, json);

        String expected = whole.substring(0, RoutingTextBuilder.MAX_CHARS);
        if (Character.isHighSurrogate(expected.charAt(expected.length() - 1))) {
            // A pair is never split: the prefix ends before it.
            expected = expected.substring(0, expected.length() - 1);
        }
        assertThat(whole.length()).isGreaterThan(RoutingTextBuilder.MAX_CHARS);
        assertThat(routed).isEqualTo(expected);
    }

    @Test
    void messagesPastTheRoutingTextAreNotRead() throws Exception {
        String longest = "x".repeat(RoutingTextBuilder.MAX_CHARS);

        String routed = text(InferenceRoute.CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":[\"" + longest
                + "\",{\"type\":\"text\",\"text\":\"more\"}]},{\"role\":\"user\",\"content\":\"tail\"}]}");

        assertThat(routed).hasSize(RoutingTextBuilder.MAX_CHARS).startsWith("<|user|>xxx").doesNotContain("more", "tail");
    }

    @Test
    void tokenIdsPastTheRoutingTextAreParsedButNotKept() throws Exception {
        StringBuilder ids = new StringBuilder("{\"input_ids\":[1");
        for (int i = 0; i < RoutingTextBuilder.MAX_CHARS / 4; i++) {
            ids.append(",1234567");
        }

        String routed = text(InferenceRoute.GENERATE, ids.append("]}").toString());

        assertThat(routed).hasSize(RoutingTextBuilder.MAX_CHARS).startsWith("1 1234567 1234567");
    }

    @Test
    void aModelNameLongerThanTheRoutingTextIsRefused() {
        String json = "{\"model\":\"" + "m".repeat(RoutingTextBuilder.MAX_CHARS + 1) + "\",\"prompt\":\"p\"}";

        assertThatThrownBy(() -> sniff(InferenceRoute.COMPLETIONS, json)).isInstanceOf(BadRequestException.class)
                .hasMessageContaining("beyond the gateway's limits");
    }
}
