package dev.homing.gateway.kvevents;

/**
 * A KV event payload that is not a batch this decoder can read: truncated, of the wrong shape, or with a known
 * event whose fields are missing or of the wrong type. The whole batch is refused, so its subscriber counts it as a
 * lost batch (the worker's view goes STALE) rather than applying part of it.
 */
public final class KvEventFormatException extends Exception {

    public KvEventFormatException(String message) {
        super(message);
    }

    public KvEventFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
