package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class UsageTailTest {

    @Test
    void openAiUsageAtTheEndOfAnAnswerIsFound() {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer("{\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":3,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}"));

        assertThat(tail.scan()).isEqualTo(new UsageTail.Usage(120, 96));
    }

    @Test
    void usageSplitOverTheLastTwoChunksIsFound() {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer("data: {\"usage\":{\"prompt_tok"));
        tail.saw(Buffer.buffer("ens\": 40, \"prompt_tokens_details\":{\"cached_tokens\": 32}}}\n\ndata: [DONE]\n\n"));

        assertThat(tail.scan()).isEqualTo(new UsageTail.Usage(40, 32));
    }

    @Test
    void responsesApiInputTokensCount() {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer("{\"usage\":{\"input_tokens\":9,\"input_tokens_details\":{\"cached_tokens\":0}}}"));

        assertThat(tail.scan()).isEqualTo(new UsageTail.Usage(9, 0));
    }

    @Test
    void anAnswerWithoutUsageHasNone() {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer("data: {\"choices\":[{\"delta\":{}}]}\n\ndata: [DONE]\n\n"));

        assertThat(tail.scan()).isNull();
    }
}
