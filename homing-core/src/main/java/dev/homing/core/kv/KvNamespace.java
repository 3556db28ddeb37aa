package dev.homing.core.kv;

import net.openhft.hashing.LongHashFunction;

/**
 * What isolates one set of cached blocks from another at the same tokens: the LoRA adapter and the cache salt. Its
 * {@link #root()} seeds the first block's hash, so the chains of two namespaces never meet.
 *
 * @param lora the adapter's name ({@code "#n"} when an engine names it by number only), or null for the base model
 * @param salt the tenant's cache salt, or null
 */
public record KvNamespace(String lora, String salt) {

    /** The base model, unsalted: the namespace of nearly every block. */
    public static final KvNamespace DEFAULT = new KvNamespace(null, null);

    /** An empty name counts as none, as the engines treat it. */
    public static KvNamespace of(String lora, String salt) {
        String l = lora == null || lora.isEmpty() ? null : lora;
        String s = salt == null || salt.isEmpty() ? null : salt;
        return l == null && s == null ? DEFAULT : new KvNamespace(l, s);
    }

    /** The seed of the namespace's first block: 0 for {@link #DEFAULT}. */
    public long root() {
        if (lora == null && salt == null) {
            return 0;
        }
        // Each part is tagged with whether it is present, so ("a", null) and (null, "a") differ.
        String key = (lora == null ? "-" : "+" + lora) + '\0' + (salt == null ? "-" : "+" + salt);
        return LongHashFunction.xx3().hashChars(key);
    }
}
