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
    void noPromptNoQuery() {
        assertThat(read(RequestKind.EMBEDDING, "{\"input\":\"abc\",\"cache_salt\":\"s\"}")).isNull();
        assertThat(read(RequestKind.CHAT, "not json")).isNull();
    }

    private static ExactQuery read(RequestKind kind, String body) {
        return ExactQuery.read(kind, ByteSlice.of(body.getBytes(StandardCharsets.UTF_8)));
    }
}
