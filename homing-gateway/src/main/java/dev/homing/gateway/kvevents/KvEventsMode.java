package dev.homing.gateway.kvevents;

/**
 * {@code --kv-events}: how each worker's endpoint is found.
 *
 * @param value {@code auto}, {@code off}, or an endpoint template
 */
public record KvEventsMode(String value) {

    public static final KvEventsMode AUTO = new KvEventsMode("auto");
    public static final KvEventsMode OFF = new KvEventsMode("off");

    public boolean off() {
        return value.equals("off");
    }

    public boolean auto() {
        return value.equals("auto");
    }
}
