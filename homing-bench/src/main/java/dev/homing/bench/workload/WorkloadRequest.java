package dev.homing.bench.workload;

import java.util.List;

/**
 * One request at a fixed time: what the offline simulator and open-loop replays consume.
 *
 * @param arrivalMicros   when it is sent, from the start of the run
 * @param conversationId  the conversation it belongs to
 * @param turn            0-based turn index within the conversation
 * @param messages        the whole chat history sent, ending with the user turn
 * @param maxOutputTokens the answer length asked for
 * @param blockIds        the trace's prefix block ids of the prompt, empty when the source has none
 */
public record WorkloadRequest(long arrivalMicros, String conversationId, int turn, List<ChatMessage> messages,
                              int maxOutputTokens, List<Long> blockIds) {

    public WorkloadRequest {
        messages = List.copyOf(messages);
        blockIds = List.copyOf(blockIds);
    }

    /** The prompt as one text, rendered by {@link ChatHistory#render}. */
    public String prompt() {
        return ChatHistory.render(messages);
    }
}
