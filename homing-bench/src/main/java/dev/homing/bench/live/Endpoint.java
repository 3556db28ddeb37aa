package dev.homing.bench.live;

/**
 * The inference endpoint a load run posts to, and the shape of its request and answer: OpenAI chat
 * ({@code messages}), OpenAI completions ({@code prompt}) or SGLang's native {@code /generate} ({@code text},
 * {@code sampling_params}, cumulative text in each streamed chunk, usage in {@code meta_info}).
 */
public enum Endpoint {
    CHAT("/v1/chat/completions"),
    COMPLETIONS("/v1/completions"),
    GENERATE("/generate");

    private final String path;

    Endpoint(String path) {
        this.path = path;
    }

    public String path() {
        return path;
    }

    /** Whether each streamed chunk carries the whole text so far (SGLang) rather than only the new part. */
    boolean streamsCumulativeText() {
        return this == GENERATE;
    }
}
