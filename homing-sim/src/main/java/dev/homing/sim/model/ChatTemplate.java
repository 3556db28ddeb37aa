package dev.homing.sim.model;

import dev.homing.tokenizer.TokenIdBuffer;
import java.util.List;

/**
 * A fixed ChatML-style template: {@code <|im_start|>role\ncontent<|im_end|>\n} per message, then the generation
 * prompt {@code <|im_start|>assistant\n}.
 *
 * <p>Each piece is tokenized on its own, as special tokens and message boundaries are in real templates, so a message's
 * tokens never depend on the length of what came before. Hence turn k's prompt extends turn k-1's prompt followed by
 * the assistant's answer, token for token. Stateless and thread-safe.
 */
public final class ChatTemplate {
    private static final String START = "<|im_start|>";
    private static final String END = "<|im_end|>\n";
    private static final String ASSISTANT = "assistant";

    private ChatTemplate() {
    }

    /** The prompt tokens for {@code messages}, ending with the assistant generation prompt. */
    public static int[] encode(List<ChatMessage> messages) {
        return encode(messages, true);
    }

    /** The prompt tokens for {@code messages}, ending with the generation prompt when {@code addGenerationPrompt}. */
    public static int[] encode(List<ChatMessage> messages, boolean addGenerationPrompt) {
        TokenIdBuffer tokens = new TokenIdBuffer();
        for (ChatMessage message : messages) {
            tokens.add(Tokenizer.encode(START + message.role() + "\n"));
            tokens.add(Tokenizer.encode(message.content()));
            tokens.add(Tokenizer.encode(END));
        }
        if (addGenerationPrompt) {
            tokens.add(Tokenizer.encode(START + ASSISTANT + "\n"));
        }
        return tokens.toArray();
    }
}
