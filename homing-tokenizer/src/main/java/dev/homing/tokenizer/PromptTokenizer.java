package dev.homing.tokenizer;

import java.util.List;

/**
 * How an engine turns a request into prompt tokens, so that whoever predicts its KV cache (the simulated engine, the
 * gateway) counts the same tokens it does. Implementations are thread-safe.
 */
public interface PromptTokenizer {

    /**
     * The tokens of a raw prompt ({@code /generate}'s {@code text}, a completion's {@code prompt}), special tokens
     * added as the engine adds them (a BOS token, for tokenizers that declare one).
     */
    int[] encodeText(String text);

    /**
     * The tokens of a chat: the chat template applied with the generation prompt, then that text encoded without
     * adding special tokens again (the template writes its own), as SGLang and vLLM do.
     *
     * @throws ChatTemplateException when the template refuses the chat (its {@code raise_exception})
     */
    int[] encodeChat(List<ChatTurn> turns);

    /**
     * {@link #encodeText(String)}, or without the special tokens the tokenizer adds ({@code /tokenize}'s
     * {@code add_special_tokens}).
     *
     * @throws UnsupportedOperationException when this tokenizer cannot leave them out
     */
    default int[] encodeText(String text, boolean addSpecialTokens) {
        if (addSpecialTokens) {
            return encodeText(text);
        }
        throw new UnsupportedOperationException(name() + " cannot encode without its special tokens");
    }

    /**
     * {@link #encodeChat(List)}, or without the generation prompt ({@code /tokenize}'s
     * {@code add_generation_prompt}).
     *
     * @throws UnsupportedOperationException when this tokenizer cannot leave it out
     */
    default int[] encodeChat(List<ChatTurn> turns, boolean addGenerationPrompt) {
        if (addGenerationPrompt) {
            return encodeChat(turns);
        }
        throw new UnsupportedOperationException(name() + " cannot encode a chat without its generation prompt");
    }

    /**
     * {@link #encodeText(String)}'s ids handed to {@code runs} as they are encoded, until it stops them; returns the
     * share of the text's characters whose ids were handed (1 when all were), from which a caller that stopped early
     * can estimate the prompt's length. This default encodes the text whole and hands it in one run.
     */
    default double encodeTextInRuns(String text, TokenRuns runs) {
        runs.accept(encodeText(text));
        return 1;
    }

    /** {@link #encodeChat(List)}'s ids handed to {@code runs}, as {@link #encodeTextInRuns}. */
    default double encodeChatInRuns(List<ChatTurn> turns, TokenRuns runs) {
        runs.accept(encodeChat(turns));
        return 1;
    }

    /**
     * Whether {@link #encodeTextInRuns} and {@link #encodeChatInRuns} hand a long prompt out in many short runs (so
     * a caller that stops early pays for little), rather than encoding it whole first.
     */
    default boolean encodesInChunks() {
        return false;
    }

    /** A short name for logs and {@code /get_server_info}: the tokenizer's directory or file, or a built-in's. */
    String name();
}
