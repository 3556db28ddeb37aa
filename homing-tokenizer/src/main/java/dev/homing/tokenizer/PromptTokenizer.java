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

    /** A short name for logs and {@code /get_server_info}: the tokenizer's directory or file, or a built-in's. */
    String name();
}
