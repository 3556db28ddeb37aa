package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class ChatCachingTest {
    @RegisterExtension
    static final SharedSimEngine engine = SharedSimEngine.atTimeScale(200);

    @Test
    void secondTurnOfAConversationFindsTheFirstTurnAndItsAnswerInTheCache() {
        ObjectNode turn1 = chat(32);
        turn1.withArray("messages").addObject().put("role", "user").put("content",
            "Compose an engaging travel blog post about a recent trip to Hawaii, highlighting cultural experiences.");
        JsonNode first = engine.postJson("/v1/chat/completions", turn1.toString());
        int firstPrompt = first.at("/usage/prompt_tokens").intValue();
        String answer = first.at("/choices/0/message/content").stringValue();

        ObjectNode turn2 = SimEngineClient.nextTurn(turn1, answer, "Rewrite it, starting every sentence with A.");
        JsonNode second = engine.postJson("/v1/chat/completions", turn2.toString());

        assertThat(first.at("/usage/completion_tokens").intValue()).isEqualTo(32);
        assertThat(second.at("/usage/prompt_tokens_details/cached_tokens").intValue())
            .isGreaterThanOrEqualTo(firstPrompt + 31);
    }

    @Test
    void theSameConversationSentAgainIsServedFromTheCacheButItsLastToken() {
        ObjectNode turn1 = chat(16);
        turn1.withArray("messages").addObject().put("role", "user").put("content", "Name three rivers in Europe.");
        JsonNode firstAnswer = engine.postJson("/v1/chat/completions", turn1.toString());
        ObjectNode turn2 = SimEngineClient.nextTurn(turn1, firstAnswer.at("/choices/0/message/content").stringValue(),
            "And three in Asia?");
        engine.postJson("/v1/chat/completions", turn2.toString());

        JsonNode again1 = engine.postJson("/v1/chat/completions", turn1.toString());
        JsonNode again2 = engine.postJson("/v1/chat/completions", turn2.toString());

        assertThat(again1.at("/choices/0/message/content")).isEqualTo(firstAnswer.at("/choices/0/message/content"));
        assertThat(again1.at("/usage/prompt_tokens_details/cached_tokens").intValue())
            .isEqualTo(again1.at("/usage/prompt_tokens").intValue() - 1);
        assertThat(again2.at("/usage/prompt_tokens_details/cached_tokens").intValue())
            .isEqualTo(again2.at("/usage/prompt_tokens").intValue() - 1);
    }

    private static ObjectNode chat(int maxTokens) {
        ObjectNode body = SimEngineClient.JSON.createObjectNode();
        body.put("model", SimEngineOptions.DEFAULT_MODEL);
        body.put("max_tokens", maxTokens);
        body.putArray("messages").addObject().put("role", "system").put("content", "You are a helpful assistant.");
        return body;
    }
}
