package dev.homing.core.request;

/**
 * The kinds of request a gateway routes, each with its rule for the routing text, the text a policy matches
 * ({@link RoutingTextBuilder} applies them). Fields are named as the request bodies name them.
 */
public enum RequestKind {
    /** SGLang {@code /generate}: {@code text} (a batch joined with spaces), else {@code input_ids} as decimals. */
    GENERATE,
    /**
     * {@code /v1/chat/completions}: the raw JSON of {@code tools} first (a chat template puts them first), then
     * each message as {@code <|role|>} followed by its text parts and reasoning, so conversations that differ only
     * in roles, system prompt or tools do not share a prefix.
     */
    CHAT,
    /** {@code /v1/completions}: {@code prompt}, a list joined with spaces, token ids as decimals. */
    COMPLETION,
    /**
     * {@code /v1/responses}: {@code instructions} as a system turn, then {@code input} (text, or items rendered like
     * chat messages).
     */
    RESPONSES,
    /** {@code /v1/embeddings}, {@code /v1/classify}: {@code input}, a list joined with spaces. */
    EMBEDDING,
    /** {@code /v1/rerank}, {@code /rerank}: {@code query}. */
    RERANK
}
