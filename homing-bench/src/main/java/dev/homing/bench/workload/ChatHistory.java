package dev.homing.bench.workload;

import java.util.ArrayList;
import java.util.List;

/** Pure functions from a conversation script and the answers so far to the messages and text of the next turn. */
public final class ChatHistory {

    private ChatHistory() {
    }

    /**
     * The messages of turn {@code turn}: the system prompt (if any), then each earlier user turn followed by its
     * answer, then this turn's user text.
     *
     * @param answers the answers to turns {@code 0..turn-1}, at least {@code turn} of them
     */
    public static List<ChatMessage> messages(Conversation conversation, int turn, List<String> answers) {
        if (turn < 0 || turn >= conversation.turns().size() || answers.size() < turn) {
            throw new IllegalArgumentException("turn " + turn + " of " + conversation.id() + " with "
                    + answers.size() + " answers");
        }
        List<ChatMessage> messages = new ArrayList<>(2 * turn + 2);
        if (!conversation.systemPrompt().isEmpty()) {
            messages.add(ChatMessage.system(conversation.systemPrompt()));
        }
        for (int i = 0; i < turn; i++) {
            messages.add(ChatMessage.user(conversation.turns().get(i).userText()));
            messages.add(ChatMessage.assistant(answers.get(i)));
        }
        messages.add(ChatMessage.user(conversation.turns().get(turn).userText()));
        return messages;
    }

    /**
     * The messages as one prompt text: each message is {@code <|role|>}, a newline, its content and a newline.
     * Consumers that match text (the offline simulator, the bounds) use this; a growing history renders to a
     * growing text whose earlier part is unchanged, which is what prefix caches reuse.
     */
    public static String render(List<ChatMessage> messages) {
        int length = 0;
        for (ChatMessage m : messages) {
            length += m.role().length() + m.content().length() + 6;
        }
        StringBuilder out = new StringBuilder(length);
        for (ChatMessage m : messages) {
            out.append("<|").append(m.role()).append("|>\n").append(m.content()).append('\n');
        }
        return out.toString();
    }
}
