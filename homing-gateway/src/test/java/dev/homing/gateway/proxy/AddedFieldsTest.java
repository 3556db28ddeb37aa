package dev.homing.gateway.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class AddedFieldsTest {

    /** Rooms 1, 2, 3...: the test knows every byte the splice writes. */
    private static LongSupplier rooms() {
        AtomicLong next = new AtomicLong();
        return next::incrementAndGet;
    }

    private static AddedFields read(String body) throws BadRequestException {
        return AddedFields.read(ByteSlice.of(body.getBytes(StandardCharsets.UTF_8)));
    }

    private static String spliced(String body, String members) {
        return AddedFields.splice(Buffer.buffer(body), members).toString(StandardCharsets.UTF_8);
    }

    @Test
    void theBootstrapFieldsGoRightAfterTheOpeningBraceAndEveryOtherByteStaysAsSent() throws Exception {
        String body = "{ \"model\" : \"m\",\n  \"text\": \"caf\\u00e9 \u00e9t\u00e9\",  \"stream\":true }";
        String fields = read(body).bootstrap("10.0.0.7", 8998, rooms());

        assertThat(spliced(body, fields)).isEqualTo("{\"bootstrap_host\":\"10.0.0.7\",\"bootstrap_port\":8998,"
                + "\"bootstrap_room\":1, \"model\" : \"m\",\n  \"text\": \"caf\\u00e9 \u00e9t\u00e9\",  "
                + "\"stream\":true }");
    }

    @Test
    void aBatchGetsOneValueOfEachFieldPerItemAndARoomOfItsOwnForEach() throws Exception {
        String body = "{\"text\":[\"a\",\"b\",\"c\"]}";
        String fields = read(body).bootstrap("p", null, rooms());

        assertThat(spliced(body, fields)).isEqualTo("{\"bootstrap_host\":[\"p\",\"p\",\"p\"],"
                + "\"bootstrap_port\":[null,null,null],\"bootstrap_room\":[1,2,3],\"text\":[\"a\",\"b\",\"c\"]}");
    }

    @Test
    void aBatchIsAnArrayOfTextsOrOfTokenIdArrays() throws Exception {
        assertThat(read("{\"prompt\":[\"a\",\"b\"]}").batchItems()).isEqualTo(2);
        assertThat(read("{\"input_ids\":[[1,2],[3],[4]]}").batchItems()).isEqualTo(3);
        assertThat(read("{\"input_ids\":[1,2,3]}").batchItems()).as("one prompt of token ids").isZero();
        assertThat(read("{\"prompt\":\"a\",\"n\":1}").batchItems()).isZero();
    }

    @Test
    void aBatchOfSeveralChoicesHoldsEveryPromptOnceAChoiceAsTheEngineCountsItsItems() throws Exception {
        assertThat(read("{\"text\":[\"a\",\"b\"],\"sampling_params\":{\"temperature\":0,\"n\":2}}").batchItems())
                .isEqualTo(4);
        assertThat(read("{\"text\":\"a\",\"sampling_params\":{\"n\":3,\"stop\":[\"x\"]}}").batchItems())
                .isEqualTo(3);
        assertThat(read("{\"text\":\"a\",\"sampling_params\":{\"n\":1}}").batchItems()).isZero();
    }

    @Test
    void anOpenAiRequestForSeveralChoicesOfItsOnePromptKeepsOneRoom() throws Exception {
        assertThat(read("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"n\":4}").batchItems()).isZero();
        assertThat(read("{\"prompt\":[\"a\",\"b\",\"c\"],\"n\":2}").batchItems()).isEqualTo(3);
    }

    @Test
    void anEmptyBatchOrAFieldTheGatewaySetsIsRefused() {
        assertThatThrownBy(() -> read("{\"text\":[]}")).isInstanceOf(BadRequestException.class)
                .hasMessage("'text' is an empty batch");
        assertThatThrownBy(() -> read("{\"text\":\"a\",\"bootstrap_room\":5}"))
                .isInstanceOf(BadRequestException.class)
                .hasMessage("'bootstrap_room' is set by the gateway, not by the request");
        assertThatThrownBy(() -> read("{\"text\":\"a\",\"data_parallel_rank\":0}"))
                .isInstanceOf(BadRequestException.class);
    }

    @Test
    void logProbabilitiesAreAskedByEitherName() throws Exception {
        assertThat(read("{\"text\":\"a\",\"return_logprob\":true}").logprobs()).isTrue();
        assertThat(read("{\"prompt\":\"a\",\"logprobs\":2}").logprobs()).isTrue();
        assertThat(read("{\"messages\":[],\"logprobs\":true}").logprobs()).isTrue();
        assertThat(read("{\"messages\":[],\"logprobs\":false}").logprobs()).isFalse();
        assertThat(read("{\"text\":\"a\"}").logprobs()).isFalse();
    }

    @Test
    void aRankJoinsTheBootstrapFieldsOrStandsAlone() throws Exception {
        String body = "\uFEFF  {\"text\":\"a\"}";
        assertThat(spliced(body, AddedFields.rank(3))).isEqualTo("\uFEFF  {\"data_parallel_rank\":3,\"text\":\"a\"}");
        String both = read(body.substring(1)).bootstrap("h", 1, rooms()) + "," + AddedFields.rank(0);
        JsonNode parsed = JsonMapper.shared().readTree(spliced(body.substring(1), both));
        assertThat(parsed.path("data_parallel_rank").asInt()).isZero();
        assertThat(parsed.path("bootstrap_room").asLong()).isEqualTo(1);
    }

    @Test
    void roomsAreNonNegativeSixtyThreeBitIntegers() throws Exception {
        String fields = read("{\"text\":\"a\"}").bootstrap("h", 1, () -> -1L);
        assertThat(fields).endsWith("\"bootstrap_room\":" + Long.MAX_VALUE);
    }
}
