package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.sim.model.BuiltInTokenizer;
import dev.homing.sim.model.EngineConfig;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** {@code /tokenize} over HTTP, in vLLM's shape, with the built-in tokenizer and with the demo one. */
class TokenizeEndpointTest {
    private static final HuggingFaceTokenizer DEMO = Tokenizers.demo();

    @RegisterExtension
    static final SharedSimEngine builtIn = SharedSimEngine.atTimeScale(1000);
    @RegisterExtension
    static final SharedSimEngine demo = SharedSimEngine.of(SimEngineOptions.defaults().withTimeScale(1000)
        .withTokenizer(DEMO));

    @AfterAll
    static void closeDemo() {
        DEMO.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/tokenize", "/v1/tokenize"})
    void aPromptIsAnsweredWithItsTokensTheirCountAndTheContextLength(String path) {
        JsonNode answer = builtIn.postJson(path, "{\"model\":\"m\",\"prompt\":\"abcdefghij\"}");

        assertThat(answer.path("count").intValue()).isEqualTo(3);
        assertThat(answer.path("max_model_len").intValue()).isEqualTo(EngineConfig.DEFAULTS.contextLength());
        assertThat(ints(answer)).containsExactly(BuiltInTokenizer.INSTANCE.encodeText("abcdefghij"));
    }

    @Test
    void theDemoEngineAnswersItsTokenizersTokensForAPromptAndForAChat() {
        JsonNode prompt = demo.postJson("/tokenize", "{\"prompt\":\"hello world\"}");
        JsonNode chat = demo.postJson("/v1/tokenize",
            "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},{\"role\":\"user\",\"content\":\"hi\"}]}");
        JsonNode noGenerationPrompt = demo.postJson("/tokenize", "{\"messages\":[{\"role\":\"user\",\"content\":"
            + "\"hi\"}],\"add_generation_prompt\":false}");

        assertThat(ints(prompt)).containsExactly(104, 596, 108, 111, 260, 111, 356, 100);
        assertThat(ints(chat)).containsExactly(DEMO.encodeChat(List.of(new ChatTurn("system", "Be brief."),
            new ChatTurn("user", "hi"))));
        assertThat(chat.path("count").intValue()).isEqualTo(ints(chat).length);
        assertThat(ints(noGenerationPrompt))
            .containsExactly(DEMO.encodeChat(List.of(new ChatTurn("user", "hi")), false));
    }

    @Test
    void theBuiltInChatWithoutTheGenerationPromptIsTheChatLessItsLastSixTokens() {
        String messages = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
        int[] with = ints(builtIn.postJson("/tokenize", messages + "}"));
        int[] without = ints(builtIn.postJson("/tokenize", messages + ",\"add_generation_prompt\":false}"));

        // "<|im_start|>assistant\n" is 22 characters, tokenized on its own: 6 tokens.
        assertThat(without).hasSize(with.length - 6).isEqualTo(java.util.Arrays.copyOf(with, with.length - 6));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{not json",
        "[]",
        "{}",
        "{\"prompt\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"b\"}]}",
        "{\"prompt\":42}",
        "{\"messages\":[]}",
        "{\"messages\":[{\"content\":\"no role\"}]}",
        "{\"prompt\":\"a\",\"add_special_tokens\":\"yes\"}",
        "{\"prompt\":\"a\",\"model\":7}",
        "{\"messages\":[{\"role\":\"user\",\"content\":\"b\"}],\"add_special_tokens\":true}",
    })
    void badInputIsA400InTheOpenAiErrorShape(String body) {
        for (SharedSimEngine engine : List.of(builtIn, demo)) {
            HttpResponse<String> response = engine.post("/tokenize", body);

            assertThat(SimEngineClient.errorMessage(response, 400)).isNotBlank().doesNotContain("Exception");
        }
    }

    private static int[] ints(JsonNode answer) {
        JsonNode tokens = answer.path("tokens");
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = tokens.get(i).intValue();
        }
        return ids;
    }
}
