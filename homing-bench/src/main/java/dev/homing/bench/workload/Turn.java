package dev.homing.bench.workload;

import java.util.List;
import java.util.Objects;

/**
 * One user turn of a conversation script.
 *
 * @param userText        what the user sends in this turn
 * @param thinkMicros     the pause between the previous turn's answer and this turn (0 for the first turn)
 * @param maxOutputTokens the answer length to ask for ({@code max_tokens})
 * @param blockIds        the trace's prefix block ids of the whole prompt of this turn, empty when the source has
 *                        none (only block-hash traces have them; they let the simulator compute exact oracle hits)
 */
public record Turn(String userText, long thinkMicros, int maxOutputTokens, List<Long> blockIds) {

    public Turn {
        Objects.requireNonNull(userText, "userText");
        if (thinkMicros < 0 || maxOutputTokens < 0) {
            throw new IllegalArgumentException("negative think time or output length");
        }
        blockIds = List.copyOf(blockIds);
    }

    public Turn(String userText, long thinkMicros, int maxOutputTokens) {
        this(userText, thinkMicros, maxOutputTokens, List.of());
    }
}
