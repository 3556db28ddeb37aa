package dev.homing.core.policy;

/**
 * The parts of a request that routing reads. The gateway fills it from the body and headers; the simulator from a
 * trace. A missing header is {@code null}.
 *
 * @param text         the routing text (see the gateway's routing-text rules); empty, never null
 * @param routingKey   {@code X-SMG-Routing-Key}: a sticky session key
 * @param targetWorker {@code X-SMG-Target-Worker}: a 0-based index into the model's workers
 * @param implicitKey  the first of {@code authorization}, {@code x-forwarded-for}, {@code cookie} present
 */
public record RoutingRequest(String text, String routingKey, String targetWorker, String implicitKey) {

    public RoutingRequest {
        text = text == null ? "" : text;
    }

    public static RoutingRequest ofText(String text) {
        return new RoutingRequest(text, null, null, null);
    }
}
