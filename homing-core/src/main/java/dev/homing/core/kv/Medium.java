package dev.homing.core.kv;

/**
 * Where an engine says a block is kept. Only {@link #GPU} blocks serve a prefix match at once; the others are
 * recorded by the engines' tiered caches and are not indexed (yet).
 */
public enum Medium {
    /** Device memory; also what an event without a medium means (engines before the field existed). */
    GPU,
    /** Host memory: SGLang's {@code CPU_TIER1} (also spelt {@code CPU_PINNED}), vLLM's {@code CPU}. */
    CPU_TIER1,
    /** SGLang's second host tier, {@code CPU_TIER2}. */
    CPU_TIER2,
    /** Any other spelling (a disk or remote tier, or one newer than this decoder): never indexed. */
    OTHER;

    /** The medium an event names, {@code null} (absent) meaning {@link #GPU}. */
    public static Medium of(String name) {
        if (name == null) {
            return GPU;
        }
        return switch (name) {
            case "GPU" -> GPU;
            case "CPU_TIER1", "CPU_PINNED", "CPU" -> CPU_TIER1;
            case "CPU_TIER2" -> CPU_TIER2;
            default -> OTHER;
        };
    }
}
