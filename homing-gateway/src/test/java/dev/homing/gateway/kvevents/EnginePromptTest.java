package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import dev.homing.tokenizer.ChatTurn;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnginePromptTest {

    @Test
    void aChatIsItsTurnsWithTextPartsJoined() {
        EnginePrompt prompt = read(RequestKind.CHAT, """
                {"model":"m","messages":[{"role":"system","content":"Be brief."},
                 {"role":"user","content":[{"type":"text","text":"Hello "},{"type":"text","text":"there"}]},
                 {"role":"assistant","tool_calls":[]}]}""");

        assertThat(prompt).isEqualTo(new EnginePrompt.Chat(List.of(new ChatTurn("system", "Be brief."),
                new ChatTurn("user", "Hello there"), new ChatTurn("assistant", ""))));
    }

    @Test
    void aCompletionIsItsTextOrItsTokenIdsAndABatchItsFirstPrompt() {
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":\"Once upon\"}"))
                .isEqualTo(new EnginePrompt.Text("Once upon"));
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":[\"first\",\"second\"]}"))
                .isEqualTo(new EnginePrompt.Text("first"));
        EnginePrompt ids = read(RequestKind.COMPLETION, "{\"prompt\":[[5,6,7],[8]]}");
        assertThat(((EnginePrompt.Tokens) ids).ids()).containsExactly(5, 6, 7);
    }

    @Test
    void aGenerateRequestIsItsTextElseItsInputIds() {
        assertThat(read(RequestKind.GENERATE, "{\"text\":\"abc\",\"input_ids\":[1]}"))
                .isEqualTo(new EnginePrompt.Text("abc"));
        assertThat(((EnginePrompt.Tokens) read(RequestKind.GENERATE, "{\"input_ids\":[1,2]}")).ids())
                .containsExactly(1, 2);
    }

    @Test
    void whatNoEngineCachesByPrefixHasNoPrompt() {
        assertThat(read(RequestKind.EMBEDDING, "{\"input\":\"abc\"}")).isNull();
        assertThat(read(RequestKind.CHAT, "{\"messages\":[]}")).isNull();
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":\"\"}")).isNull();
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":[1,\"x\"]}")).isNull();
    }

    @Test
    void aChatWhoseTemplateReadsMoreThanItsMessagesTextHasNoPromptTheGatewayRenders() {
        String user = "{\"role\":\"user\",\"content\":\"Weather in Paris?\"}";
        List<String> bodies = List.of(
                "{\"messages\":[" + user + "],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"w\"}}]}",
                "{\"messages\":[" + user + "],\"chat_template_kwargs\":{\"enable_thinking\":false}}",
                "{\"messages\":[" + user + "],\"documents\":[{\"text\":\"d\"}]}",
                "{\"messages\":[" + user + ",{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"1\"}]}]}",
                "{\"messages\":[" + user + ",{\"role\":\"assistant\",\"content\":\"x\",\"reasoning_content\":\"r\"}]}",
                "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is this?\"},"
                        + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,AA==\"}}]}]}",
                "{\"messages\":[" + user + "],\"add_generation_prompt\":false}",
                "{\"messages\":[" + user + ",{\"role\":\"assistant\",\"content\":\"It is\"}],"
                        + "\"continue_final_message\":true}");

        assertThat(bodies).allSatisfy(body -> assertThat(read(RequestKind.CHAT, body)).as(body).isNull());
        assertThat(read(RequestKind.CHAT, "{\"messages\":[" + user + "],\"tools\":[],\"chat_template_kwargs\":{},"
                + "\"documents\":null,\"add_generation_prompt\":true,\"continue_final_message\":false}"))
                .as("empty ones count as absent, the defaults as unsaid").isNotNull();
    }

    private static EnginePrompt read(RequestKind kind, String body) {
        return EnginePrompt.read(kind, ByteSlice.of(body.getBytes(StandardCharsets.UTF_8)));
    }
}
