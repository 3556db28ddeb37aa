package dev.homing.sim.http;

/** The inference APIs the engine answers; each has its own request and response shape. */
enum Api {
    /** SGLang's native {@code POST /generate}. */
    GENERATE,
    /** OpenAI {@code POST /v1/chat/completions}. */
    CHAT,
    /** OpenAI {@code POST /v1/completions}. */
    COMPLETION,
    /** OpenAI {@code POST /v1/responses}, answered without streaming. */
    RESPONSES
}
