package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.kv.KvNamespace;
import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExactQueryTest {

    @Test
    void aRequestWithoutAdapterOrSaltLooksInTheBaseModelsBlocks() {
        assertThat(read(RequestKind.CHAT, "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}").namespace())
                .isEqualTo(KvNamespace.DEFAULT);
    }

    @Test
    void anAdapterAndASaltNameTheNamespaceTheEngineCachesUnder() {
        ExactQuery query = read(RequestKind.GENERATE,
                "{\"text\":\"abc\",\"lora_path\":\"sql-adapter\",\"cache_salt\":\"tenant-7\"}");

        assertThat(query.prompt()).isEqualTo(new EnginePrompt.Text("abc"));
        assertThat(query.namespace()).isEqualTo(KvNamespace.of("sql-adapter", "tenant-7"));
    }

    @Test
    void aBatchsFirstAdapterStandsForItAndAnythingButTextIsNoName() {
        assertThat(read(RequestKind.GENERATE, "{\"text\":[\"a\",\"b\"],\"lora_path\":[\"first\",\"second\"]}")
                .namespace()).isEqualTo(KvNamespace.of("first", null));
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":\"a\",\"lora_path\":null,\"cache_salt\":7}")
                .namespace()).isEqualTo(KvNamespace.DEFAULT);
    }

    @Test
    void onlyOneTextPromptAskedForOneAnswerIsCheckedAgainstTheEnginesCount() {
        String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
        assertThat(read(RequestKind.CHAT, chat + "}").checkable()).isTrue();
        assertThat(read(RequestKind.CHAT, chat + ",\"n\":1}").checkable()).isTrue();
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":\"abc\",\"best_of\":null}").checkable()).isTrue();
        assertThat(read(RequestKind.GENERATE, "{\"text\":\"abc\",\"sampling_params\":{\"n\":1}}").checkable())
                .isTrue();

        assertThat(read(RequestKind.CHAT, chat + ",\"n\":3}").checkable()).as("n answers").isFalse();
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":[\"a\",\"b\"]}").checkable()).as("a batch").isFalse();
        assertThat(read(RequestKind.COMPLETION, "{\"prompt\":\"a\",\"best_of\":2}").checkable()).isFalse();
        assertThat(read(RequestKind.GENERATE, "{\"text\":\"a\",\"sampling_params\":{\"n\":2}}").checkable())
                .isFalse();
        assertThat(read(RequestKind.GENERATE, "{\"input_ids\":[1,2,3]}").checkable()).as("the client's ids")
                .isFalse();
    }

    @Test
    void noPromptNoQuery() {
        assertThat(read(RequestKind.EMBEDDING, "{\"input\":\"abc\",\"cache_salt\":\"s\"}")).isNull();
        assertThat(read(RequestKind.CHAT, "not json")).isNull();
    }

    private static ExactQuery read(RequestKind kind, String body) {
        return ExactQuery.read(kind, ByteSlice.of(body.getBytes(StandardCharsets.UTF_8)));
    }
}
