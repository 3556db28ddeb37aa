package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChatHistoryTest {

    private final Conversation conversation = new Conversation("c", 0, "Be brief.",
            List.of(new Turn("Hi?", 0, 10), new Turn("And then?", 1_000, 10)));

    @Test
    void aLaterTurnCarriesTheSystemPromptEarlierTurnsAndTheirAnswers() {
        assertThat(ChatHistory.messages(conversation, 1, List.of("Hello."))).containsExactly(
                ChatMessage.system("Be brief."), ChatMessage.user("Hi?"), ChatMessage.assistant("Hello."),
                ChatMessage.user("And then?"));
    }

    @Test
    void aConversationWithoutSystemPromptStartsWithTheUser() {
        Conversation bare = new Conversation("b", 0, "", List.of(new Turn("Hi?", 0, 10)));

        assertThat(ChatHistory.messages(bare, 0, List.of())).containsExactly(ChatMessage.user("Hi?"));
    }

    @Test
    void renderingTagsEachMessageWithItsRole() {
        String text = ChatHistory.render(List.of(ChatMessage.system("S"), ChatMessage.user("U")));

        assertThat(text).isEqualTo("<|system|>\nS\n<|user|>\nU\n");
    }

    @Test
    void theNextTurnsTextExtendsThePreviousTurnsText() {
        String first = ChatHistory.render(ChatHistory.messages(conversation, 0, List.of()));
        String second = ChatHistory.render(ChatHistory.messages(conversation, 1, List.of("Hello.")));

        assertThat(second).startsWith(first);
    }
}
