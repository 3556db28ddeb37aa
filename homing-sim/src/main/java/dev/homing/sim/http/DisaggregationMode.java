package dev.homing.sim.http;

import java.util.Locale;

/** SGLang's {@code --disaggregation-mode}: what part of a request the engine serves. */
public enum DisaggregationMode {
    /** The whole request, alone: SGLang's {@code null}. */
    NONE,
    /** The prompt and the first token; the KV goes to the decode engine of the same bootstrap room. */
    PREFILL,
    /** The output, from the KV a prefill engine hands over. */
    DECODE;

    /** As SGLang names it: {@code null}, {@code prefill}, {@code decode}. */
    public String flag() {
        return this == NONE ? "null" : name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for a name SGLang does not have */
    public static DisaggregationMode parse(String flag) {
        return switch (flag.toLowerCase(Locale.ROOT)) {
            case "null" -> NONE;
            case "prefill" -> PREFILL;
            case "decode" -> DECODE;
            default -> throw new IllegalArgumentException("unknown disaggregation mode '" + flag
                + "'; valid: null, prefill, decode");
        };
    }

    /** Whether a request must carry bootstrap fields here. */
    boolean disaggregated() {
        return this != NONE;
    }
}
