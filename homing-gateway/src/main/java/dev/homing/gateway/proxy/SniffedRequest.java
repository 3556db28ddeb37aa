package dev.homing.gateway.proxy;

/**
 * What the gateway reads from a request body: nothing else of it is interpreted; the body is forwarded as sent.
 *
 * @param model       the {@code model} field, or null when absent
 * @param stream      the {@code stream} field (false when absent)
 * @param routingText the text the routing policy matches, never null
 */
public record SniffedRequest(String model, boolean stream, String routingText) {
}
