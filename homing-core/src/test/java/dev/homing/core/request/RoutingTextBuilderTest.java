package dev.homing.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoutingTextBuilderTest {

    @Test
    void aChatIsEachMessageAfterItsRole() {
        RoutingTextBuilder chat = RoutingTextBuilder.of(RequestKind.CHAT)
                .message("system", "Be brief.").message("user", "Hi");

        assertThat(chat.build()).isEqualTo("<|system|>Be brief.<|user|>Hi");
    }

    @Test
    void aChatsToolsComeFirstAsTheyWereSent() {
        RoutingTextBuilder chat = RoutingTextBuilder.of(RequestKind.CHAT).message("user", "hi")
                .tools("[{\"type\":\"function\"}]");

        assertThat(chat.build()).isEqualTo("<|tools|>[{\"type\":\"function\"}]<|user|>hi");
    }

    @Test
    void aPromptOfOneStringIsThatStringItself() {
        String prompt = "Once upon a time";
        RoutingTextBuilder completion = RoutingTextBuilder.of(RequestKind.COMPLETION);
        completion.text().append(prompt);

        assertThat(completion.build()).isSameAs(prompt);
    }

    @Test
    void listValuesAreJoinedWithSpacesAndTokenIdsWrittenAsDecimals() {
        RoutingTextBuilder completion = RoutingTextBuilder.of(RequestKind.COMPLETION);
        completion.text().item("a b").item("c").item(42);

        assertThat(completion.build()).isEqualTo("a b c 42");
    }

    @Test
    void generateMatchesItsTokenIdsOnlyWithoutText() {
        RoutingTextBuilder ids = RoutingTextBuilder.of(RequestKind.GENERATE);
        ids.inputIds().item(9);
        ids.inputIds().item(1).item(2);
        RoutingTextBuilder both = RoutingTextBuilder.of(RequestKind.GENERATE);
        both.inputIds().item(1);
        both.text().append("words");

        assertThat(ids.build()).as("the last input_ids value counts").isEqualTo("1 2");
        assertThat(both.build()).isEqualTo("words");
    }

    @Test
    void responsesPutTheirInstructionsFirstAsASystemTurn() {
        RoutingTextBuilder responses = RoutingTextBuilder.of(RequestKind.RESPONSES).instructions("Be kind.")
                .message("user", "hi");
        RoutingTextBuilder plain = RoutingTextBuilder.of(RequestKind.RESPONSES);
        plain.text().append("plain");

        assertThat(responses.build()).isEqualTo("<|system|>Be kind.<|user|>hi");
        assertThat(plain.build()).isEqualTo("plain");
    }

    @Test
    void theRoutingTextIsAPrefixOfAtMostAMillionCharactersHoweverItIsFed() {
        String half = "a".repeat(RoutingTextBuilder.MAX_CHARS / 2 + 1);
        RoutingTextBuilder pieces = RoutingTextBuilder.of(RequestKind.CHAT).tools("[" + half + "]")
                .message("user", half).message("user", half);
        RoutingTextBuilder whole = RoutingTextBuilder.of(RequestKind.COMPLETION);
        whole.text().append(half + half);
        RoutingTextBuilder ids = RoutingTextBuilder.of(RequestKind.GENERATE);
        RoutingTextBuilder.FieldText idText = ids.inputIds();
        for (int i = 0; idText.room() > 0 && i < RoutingTextBuilder.MAX_CHARS; i++) {
            idText.item(123_456_789L);
        }

        assertThat(pieces.build()).hasSize(RoutingTextBuilder.MAX_CHARS).startsWith("<|tools|>[aaa");
        assertThat(whole.build()).isEqualTo((half + half).substring(0, RoutingTextBuilder.MAX_CHARS));
        assertThat(whole.text().room()).isZero();
        assertThat(ids.build()).hasSize(RoutingTextBuilder.MAX_CHARS).startsWith("123456789 123456789");
    }

    @Test
    void aFieldAKindDoesNotHaveIsRefused() {
        assertThatThrownBy(() -> RoutingTextBuilder.of(RequestKind.COMPLETION).tools("[]"))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> RoutingTextBuilder.of(RequestKind.RERANK).message("user", "q"))
                .isInstanceOf(IllegalStateException.class);
        assertThat(RoutingTextBuilder.of(RequestKind.EMBEDDING).build()).isEmpty();
    }
}
