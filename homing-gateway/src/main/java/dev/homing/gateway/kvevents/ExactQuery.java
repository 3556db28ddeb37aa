package dev.homing.gateway.kvevents;

import dev.homing.core.kv.KvNamespace;
import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import tools.jackson.databind.JsonNode;

/**
 * What a request asks of the exact view: its prompt, and the namespace its blocks are cached under. An engine keeps
 * an adapter's blocks and a salted tenant's blocks apart from the base model's even at the same tokens, and says so
 * in its events ({@code lora_name}, {@code cache_salt}); a lookup in the wrong namespace would predict a hit the
 * engine cannot give.
 *
 * <p>The request names them as the engines read them: {@code lora_path} (SGLang, one name, or a batch's list whose
 * first entry stands for the request as its first prompt does) and {@code cache_salt} (vLLM and SGLang).
 *
 * @param checkable whether the engine's usage will count this prompt's tokens alone: one text prompt (not a batch,
 *                  not ids the client counted), asked for one answer; the gateway's count of it can then be checked
 */
record ExactQuery(EnginePrompt prompt, KvNamespace namespace, boolean checkable) {

    /** The query of a body the sniffer already accepted, or null where it names no prompt (see {@link EnginePrompt}). */
    static ExactQuery read(RequestKind kind, ByteSlice body) {
        JsonNode root = EnginePrompt.parse(body);
        EnginePrompt prompt = root == null ? null : EnginePrompt.of(kind, root);
        return prompt == null ? null : new ExactQuery(prompt, namespace(root), checkable(kind, root, prompt));
    }

    private static KvNamespace namespace(JsonNode root) {
        JsonNode lora = root.path("lora_path");
        if (lora.isArray()) {
            lora = lora.path(0);
        }
        return KvNamespace.of(text(lora), text(root.path("cache_salt")));
    }

    private static boolean checkable(RequestKind kind, JsonNode root, EnginePrompt prompt) {
        return switch (prompt) {
            case EnginePrompt.Tokens tokens -> false;
            case EnginePrompt.Chat chat -> once(root.path("n"));
            case EnginePrompt.Text text -> kind == RequestKind.GENERATE
                    ? root.path("text").isString() && once(root.path("sampling_params").path("n"))
                    : root.path("prompt").isString() && once(root.path("n")) && once(root.path("best_of"));
        };
    }

    /** An answer count left out, or 1. */
    private static boolean once(JsonNode count) {
        return count.isMissingNode() || count.isNull() || count.isIntegralNumber() && count.longValue() == 1;
    }

    private static String text(JsonNode node) {
        return node.isString() ? node.asString() : null;
    }
}
