package dev.homing.sim.model;

import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.PromptTokenizer;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulated engine's own {@link Tokenizer} and {@link ChatTemplate} as a {@link PromptTokenizer}: what an engine
 * without {@code --tokenizer-path} counts, every 4 characters a token. Stateless and thread-safe.
 */
public final class BuiltInTokenizer implements PromptTokenizer {
    public static final BuiltInTokenizer INSTANCE = new BuiltInTokenizer();

    private BuiltInTokenizer() {
    }

    @Override
    public int[] encodeText(String text) {
        return Tokenizer.encode(text);
    }

    /** The built-in tokenizer adds no special tokens: the same tokens either way. */
    @Override
    public int[] encodeText(String text, boolean addSpecialTokens) {
        return Tokenizer.encode(text);
    }

    @Override
    public int[] encodeChat(List<ChatTurn> turns) {
        return encodeChat(turns, true);
    }

    @Override
    public int[] encodeChat(List<ChatTurn> turns, boolean addGenerationPrompt) {
        List<ChatMessage> messages = new ArrayList<>(turns.size());
        for (ChatTurn turn : turns) {
            messages.add(new ChatMessage(turn.role(), turn.content()));
        }
        return ChatTemplate.encode(messages, addGenerationPrompt);
    }

    @Override
    public String name() {
        return "built-in";
    }
}
