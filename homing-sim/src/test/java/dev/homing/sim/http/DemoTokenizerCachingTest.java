package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** An engine counting prompts with a real (the demo) tokenizer caches chats as it counts them. */
class DemoTokenizerCachingTest {
    private static final HuggingFaceTokenizer DEMO = Tokenizers.demo();

    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.of(SimEngineOptions.defaults().withTimeScale(200)
        .withTokenizer(DEMO));

    @AfterAll
    static void closeDemo() {
        DEMO.close();
    }

    @Test
    void theSecondTurnOfAChatFindsTheFirstTurnsPromptInTheCache() {
        ObjectNode turn1 = SimEngineClient.JSON.createObjectNode();
        turn1.put("max_tokens", 16);
        turn1.putArray("messages").addObject().put("role", "system").put("content", "You are a helpful assistant.");
        turn1.withArray("messages").addObject().put("role", "user").put("content", "Name three rivers in Europe.");
        JsonNode first = engine.postJson("/v1/chat/completions", turn1.toString());
        int firstPrompt = first.at("/usage/prompt_tokens").intValue();
        String answer = first.at("/choices/0/message/content").stringValue();

        ObjectNode turn2 = SimEngineClient.nextTurn(turn1, answer, "And three in Asia?");
        JsonNode second = engine.postJson("/v1/chat/completions", turn2.toString());

        assertThat(firstPrompt).isEqualTo(DEMO.encodeChat(List.of(
            new ChatTurn("system", "You are a helpful assistant."),
            new ChatTurn("user", "Name three rivers in Europe."))).length);
        assertThat(second.at("/usage/prompt_tokens").intValue()).isEqualTo(DEMO.encodeChat(List.of(
            new ChatTurn("system", "You are a helpful assistant."),
            new ChatTurn("user", "Name three rivers in Europe."), new ChatTurn("assistant", answer),
            new ChatTurn("user", "And three in Asia?"))).length);
        // The answer's tokens in the cache are the engine's generated ones, which the demo tokenizer does not
        // reproduce (docs/SIM_ENGINE.md): the hit is the first turn's whole prompt.
        assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").intValue())
            .isGreaterThanOrEqualTo(firstPrompt);
    }

    @Test
    void aRawPromptIsCountedInTheDemoTokenizersTokens() {
        JsonNode answer = engine.postJson("/generate", "{\"text\":\"hello world\",\"sampling_params\":"
            + "{\"max_new_tokens\":1}}");

        assertThat(answer.at("/meta_info/prompt_tokens").intValue()).isEqualTo(8);
    }
}
