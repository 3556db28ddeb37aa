package dev.homing.cli.faults;

/** Request bodies the scenarios send: small, each with text of its own so no two share a cached prefix. */
final class Requests {

    static final String CHAT = "/v1/chat/completions";
    static final String GENERATE = "/generate";
    static final String COMPLETIONS = "/v1/completions";

    private Requests() {
    }

    /** An OpenAI chat completion asking for exactly {@code maxTokens} tokens. */
    static String chat(String text, int maxTokens, boolean stream) {
        return "{\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}],\"max_tokens\":" + maxTokens
                + ",\"stream\":" + stream + "}";
    }

    /** An SGLang native generation; its streamed events carry the whole text so far, so they grow as it goes. */
    static String generate(String text, int maxNewTokens) {
        return "{\"text\":\"" + text + "\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":" + maxNewTokens
                + "}}";
    }
}
