package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseDataLinesTest {

    private final SseDataLines lines = new SseDataLines();
    private final List<String> payloads = new ArrayList<>();

    private void feed(String piece) {
        lines.feed(Buffer.buffer(piece),
                (bytes, from, to) -> payloads.add(new String(bytes, from, to - from, StandardCharsets.UTF_8)));
    }

    @Test
    void linesSplitAcrossPiecesArriveWhole() {
        feed("data: {\"a\"");
        feed(":1}\n\nda");
        feed("ta: [DONE]\n\n");

        assertThat(payloads).containsExactly("{\"a\":1}", "[DONE]");
    }

    @Test
    void otherFieldsCommentsAndCarriageReturnsAreSkipped() {
        feed("event: delta\r\n: keep-alive\r\ndata:{}\r\n\r\n");

        assertThat(payloads).containsExactly("{}");
    }

    @Test
    void aLineLongerThanTheLimitFailsInsteadOfGrowing() {
        byte[] big = new byte[SseDataLines.MAX_LINE_BYTES / 2 + 1];
        java.util.Arrays.fill(big, (byte) 'x');
        lines.feed(Buffer.buffer(big), (bytes, from, to) -> { });

        assertThatThrownBy(() -> lines.feed(Buffer.buffer(big), (bytes, from, to) -> { }))
                .isInstanceOf(SseDataLines.LineTooLong.class);
    }
}
