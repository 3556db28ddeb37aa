package dev.homing.bench.workload;

import java.util.List;
import java.util.Objects;

/**
 * A conversation script: a system prompt and the user's turns, each sent after the previous answer plus a think
 * time. The answers are not part of the script: a live driver puts the server's actual answers into the history
 * ({@link ChatHistory#messages}), the offline schedule puts synthetic ones ({@link ScheduledRequests}). A request of
 * a trace with fixed prompts is a conversation of one turn.
 *
 * @param id           unique within the workload
 * @param startMicros  when the first turn is sent, from the start of the run
 * @param systemPrompt the system message, empty for none
 * @param turns        at least one
 */
public record Conversation(String id, long startMicros, String systemPrompt, List<Turn> turns) {

    public Conversation {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(systemPrompt, "systemPrompt");
        turns = List.copyOf(turns);
        if (turns.isEmpty() || startMicros < 0) {
            throw new IllegalArgumentException("a conversation needs a turn and a start time >= 0: " + id);
        }
    }
}
