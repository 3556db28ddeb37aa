package dev.homing.sim.kvevents;

import java.util.Locale;

/** How each event of a batch is written: {@code --kv-events-format}. */
public enum KvEventsFormat {
    /** A map whose {@code type} key names the event: what current SGLang and vLLM send. */
    MAP,
    /**
     * A positional array whose first element names the event, in SGLang's older layout (its seventh field of a
     * stored block is the cache salt, where vLLM's is the LoRA name).
     */
    ARRAY;

    /** The flag's value, {@code map} or {@code array}. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException for anything but {@code map} or {@code array} */
    public static KvEventsFormat parse(String flag) {
        for (KvEventsFormat format : values()) {
            if (format.flag().equals(flag.strip().toLowerCase(Locale.ROOT))) {
                return format;
            }
        }
        throw new IllegalArgumentException("the KV event format is map or array, got '" + flag + "'");
    }
}
