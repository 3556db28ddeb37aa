package dev.homing.sim.kvevents;

import java.util.Objects;

/**
 * Whether and how the simulated engine publishes its KV events: the engines' config ({@code --kv-events-config}),
 * the events' form ({@code --kv-events-format}) and a fault of the stream ({@code --kv-events-fault}).
 *
 * @param config the config, or null: no events are published
 */
public record KvEventsOptions(KvEventsConfig config, KvEventsFormat format, KvEventFault fault) {

    /** Nothing published: SGLang's default. */
    public static final KvEventsOptions OFF = new KvEventsOptions(null, KvEventsFormat.MAP, KvEventFault.NONE);

    public KvEventsOptions {
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(fault, "fault");
    }

    /** Publishing over ZMQ with {@code config} (a JSON object as SGLang's flag takes it) in the current form. */
    public static KvEventsOptions of(String config) {
        return new KvEventsOptions(KvEventsConfig.parse(config), KvEventsFormat.MAP, KvEventFault.NONE);
    }

    public boolean enabled() {
        return config != null && config.publishes();
    }

    public KvEventsOptions withFormat(KvEventsFormat newFormat) {
        return new KvEventsOptions(config, newFormat, fault);
    }

    public KvEventsOptions withFault(KvEventFault newFault) {
        return new KvEventsOptions(config, format, newFault);
    }
}
