package dev.homing.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogprobMergeTest {

    private static final String PREFILL = "{\"text\":\"x\",\"meta_info\":{\"id\":\"p\",\"prompt_tokens\":3,"
            + "\"input_token_logprobs\":[[null,1,null],[-0.5,2,null],[-1.5,3,null]]}}";

    /** A JSON decode answer, in these chunks, merged with {@link #PREFILL}'s input log probabilities. */
    private static String mergedJson(String... chunks) {
        return whole(new LogprobMerge(LogprobMerge.prefillLogprobs(Buffer.buffer(PREFILL)), false), chunks);
    }

    private static String whole(LogprobMerge merge, String... chunks) {
        StringBuilder out = new StringBuilder();
        for (String chunk : chunks) {
            out.append(merge.chunk(Buffer.buffer(chunk)).toString(StandardCharsets.UTF_8));
        }
        return out.append(merge.end().toString(StandardCharsets.UTF_8)).toString();
    }

    @Test
    void thePrefillsInputLogProbabilitiesGoInFrontOfTheDecodesOwn() {
        String decode = "{\"text\":\"Hello\",\"meta_info\":{\"input_token_logprobs\":[[-0.1,4,null]],"
                + "\"output_token_logprobs\":[[-0.2,9,null]]}}";

        assertThat(mergedJson(decode.substring(0, 20), decode.substring(20)))
                .isEqualTo("{\"text\":\"Hello\",\"meta_info\":{\"input_token_logprobs\":[[null,1,null],[-0.5,2,null],"
                        + "[-1.5,3,null],[-0.1,4,null]],\"output_token_logprobs\":[[-0.2,9,null]]}}");
    }

    @Test
    void aDecodeAnswerWithoutTheListOrWithAnEmptyOneGetsThePrefills() {
        String lists = "[[null,1,null],[-0.5,2,null],[-1.5,3,null]]";

        assertThat(mergedJson("{\"meta_info\":{\"id\":\"d\"}}"))
                .isEqualTo("{\"meta_info\":{\"input_token_logprobs\":" + lists + ",\"id\":\"d\"}}");
        assertThat(mergedJson("{\"meta_info\":{\"input_token_logprobs\":[ ]}}"))
                .isEqualTo("{\"meta_info\":{\"input_token_logprobs\":[[null,1,null],[-0.5,2,null],[-1.5,3,null] ]}}");
        assertThat(mergedJson("{\"meta_info\":{\"input_token_logprobs\":null}}"))
                .isEqualTo("{\"meta_info\":{\"input_token_logprobs\":" + lists + "}}");
    }

    @Test
    void everyEventOfAStreamIsMergedAsItsBlankLineArrivesAndOtherEventsPassAsTheyAre() {
        Map<Integer, String> prefill = LogprobMerge.prefillLogprobs(Buffer.buffer("data: " + PREFILL + "\n\n"
                + "data: [DONE]\n\n"));
        LogprobMerge merge = new LogprobMerge(prefill, true);
        String first = "data: {\"text\":\"H\",\"meta_info\":{\"input_token_logprobs\":[]}}\n\n";

        assertThat(merge.chunk(Buffer.buffer(first.substring(0, 30))).length()).as("half an event").isZero();
        assertThat(merge.chunk(Buffer.buffer(first.substring(30) + "data: [DO")).toString(StandardCharsets.UTF_8))
                .isEqualTo("data: {\"text\":\"H\",\"meta_info\":{\"input_token_logprobs\":[[null,1,null],"
                        + "[-0.5,2,null],[-1.5,3,null]]}}\n\n");
        assertThat(merge.chunk(Buffer.buffer("NE]\n\n")).toString(StandardCharsets.UTF_8))
                .isEqualTo("data: [DONE]\n\n");
        assertThat(merge.end().length()).isZero();
    }

    @Test
    void eachItemOfABatchGetsItsOwnPrefillItemByIndex() {
        Map<Integer, String> prefill = LogprobMerge.prefillLogprobs(Buffer.buffer(
                "[{\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}},"
                        + "{\"meta_info\":{\"input_token_logprobs\":[[null,7,null]]}}]"));
        String decode = "[{\"index\":1,\"meta_info\":{\"input_token_logprobs\":[]}},"
                + "{\"index\":0,\"meta_info\":{\"input_token_logprobs\":[]}}]";

        assertThat(whole(new LogprobMerge(prefill, false), decode))
                .isEqualTo("[{\"index\":1,\"meta_info\":{\"input_token_logprobs\":[[null,7,null]]}},"
                        + "{\"index\":0,\"meta_info\":{\"input_token_logprobs\":[[null,1,null]]}}]");
    }

    @Test
    void anAnswerWithoutMetaInfoOrThatIsNotJsonPassesUnchanged() {
        String openAi = "{\"choices\":[{\"logprobs\":{\"content\":[]}}],\"usage\":{\"prompt_tokens\":3}}";

        assertThat(mergedJson(openAi)).isEqualTo(openAi);
        assertThat(mergedJson("not json")).isEqualTo("not json");
        assertThat(LogprobMerge.prefillLogprobs(Buffer.buffer(openAi))).isEmpty();
    }
}
