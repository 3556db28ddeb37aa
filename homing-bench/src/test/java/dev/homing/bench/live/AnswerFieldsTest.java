package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class AnswerFieldsTest {

    private static boolean hasUsage(String chunk) {
        byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
        return AnswerFields.hasUsageObject(bytes, 0, bytes.length);
    }

    @Test
    void aNullUsageIsNotAUsageChunk() {
        assertThat(hasUsage("{\"choices\":[{\"delta\":{\"content\":\"hi\"}}],\"usage\":null}")).isFalse();
        assertThat(hasUsage("{\"choices\":[],\"usage\" : {\"prompt_tokens\":3}}")).isTrue();
    }

    @Test
    void cachedTokensAreReadFromPromptTokenDetails() {
        var chunk = JsonMapper.builder().build().readTree("{\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":8}}}");

        assertThat(AnswerFields.usage(chunk, Endpoint.CHAT)).isEqualTo(new Usage(10, 2, 8));
    }

    @Test
    void usageWithoutDetailsSaysCachedTokensAreUnknown() {
        var chunk = JsonMapper.builder().build().readTree("{\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":2}}");

        assertThat(AnswerFields.usage(chunk, Endpoint.COMPLETIONS).reportsCachedTokens()).isFalse();
    }
}
