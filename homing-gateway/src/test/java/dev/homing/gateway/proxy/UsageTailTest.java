package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

class UsageTailTest {

    @Test
    void openAiUsageAtTheEndOfAnAnswerIsFound() {
        assertThat(scanOf("{\"choices\":[],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":3,"
                + "\"prompt_tokens_details\":{\"cached_tokens\":96}}}")).isEqualTo(new UsageTail.Usage(120, 96));
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
        assertThat(scanOf("{\"usage\":{\"input_tokens\":9,\"input_tokens_details\":{\"cached_tokens\":0}}}")).isEqualTo(new UsageTail.Usage(9, 0));
    }

    @Test
    void anAnswerWithoutUsageHasNone() {
        assertThat(scanOf("data: {\"choices\":[{\"delta\":{}}]}\n\ndata: [DONE]\n\n")).isNull();
    }

    @Test
    void theLastUsageOfTheAnswerCounts() {
        assertThat(scanOf("{\"prompt_tokens\":1,\"cached_tokens\":1} {\"prompt_tokens\":7,\"cached_tokens\":5}")).isEqualTo(new UsageTail.Usage(7, 5));
    }

    @Test
    void usageOlderThanTheLastSixteenKilobytesIsNotSeen() {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer("{\"prompt_tokens\":12,"));
        tail.saw(Buffer.buffer(" ".repeat(16 * 1024) + "}"));

        assertThat(tail.scan()).isNull();
    }

    @Test
    void anOverlongCountIsCutAtEighteenDigits() {
        assertThat(scanOf("{\"prompt_tokens\":12345678901234567890}")).isEqualTo(new UsageTail.Usage(123456789012345678L, 0));
    }

    /** What the tail finds in an answer that arrived in one chunk. */
    private static UsageTail.Usage scanOf(String answer) {
        UsageTail tail = new UsageTail();
        tail.saw(Buffer.buffer(answer));
        return tail.scan();
    }

    /** The byte scan against the plain text search it replaced, on random answers cut at random places. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void findsWhatATextSearchOfTheSameTailFinds(long seed) {
        Random random = new Random(seed);
        String[] pieces = {"\"prompt_tokens\":", "\"prompt_tokens\": ", "\"input_tokens\":", "\"cached_tokens\":",
            "\"cached_tokens\":  ", "12", "0", "987654", " ", "x", "data: ", "}\n\n", "é", "\"usage\":{"};
        for (int run = 0; run < 200; run++) {
            StringBuilder answer = new StringBuilder();
            int count = 1 + random.nextInt(30);
            for (int i = 0; i < count; i++) {
                answer.append(pieces[random.nextInt(pieces.length)]);
            }
            if (random.nextInt(10) == 0) {
                answer.append(" ".repeat(16 * 1024 - random.nextInt(64)));
            }
            byte[] bytes = answer.toString().getBytes(StandardCharsets.UTF_8);
            int cut = random.nextInt(bytes.length + 1);
            UsageTail tail = new UsageTail();
            Buffer previous = Buffer.buffer().appendBytes(bytes, 0, cut);
            Buffer last = Buffer.buffer().appendBytes(bytes, cut, bytes.length - cut);
            tail.saw(previous);
            tail.saw(last);

            assertThat(tail.scan()).as("answer %s cut at %d", answer, cut).isEqualTo(TextModel.scan(previous, last));
        }
    }

    /** The String-based search UsageTail used to run: the reference the byte scan must agree with. */
    private static final class TextModel {
        static UsageTail.Usage scan(Buffer previous, Buffer last) {
            int fromLast = Math.min(last.length(), 16 * 1024);
            int fromPrevious = Math.min(previous.length(), 16 * 1024 - fromLast);
            String tail = previous.getString(previous.length() - fromPrevious, previous.length(), "ISO-8859-1")
                    + last.getString(last.length() - fromLast, last.length(), "ISO-8859-1");
            long prompt = lastNumberAfter(tail, "\"prompt_tokens\":");
            if (prompt < 0) {
                prompt = lastNumberAfter(tail, "\"input_tokens\":");
            }
            if (prompt < 0) {
                return null;
            }
            return new UsageTail.Usage(prompt, Math.max(lastNumberAfter(tail, "\"cached_tokens\":"), 0));
        }

        static long lastNumberAfter(String text, String key) {
            int at = text.lastIndexOf(key);
            if (at < 0) {
                key = key + " ";
                at = text.lastIndexOf(key);
                if (at < 0) {
                    return -1;
                }
            }
            int i = at + key.length();
            while (i < text.length() && text.charAt(i) == ' ') {
                i++;
            }
            long value = 0;
            int digits = 0;
            while (i < text.length() && Character.isDigit(text.charAt(i)) && digits < 18) {
                value = value * 10 + (text.charAt(i) - '0');
                i++;
                digits++;
            }
            return digits == 0 ? -1 : value;
        }
    }
}
