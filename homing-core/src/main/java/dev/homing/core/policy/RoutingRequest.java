package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;

/**
 * The parts of a request that routing reads. The gateway fills it from the body and headers; the simulator from a
 * trace. A missing header is {@code null}, and so is an empty one: {@code X-SMG-Routing-Key:} with no value names no
 * session (else every such request would share the session {@code ""}), as the reference's header reading has it.
 *
 * @param text         the routing text (see the gateway's routing-text rules); empty, never null
 * @param routingKey   {@code X-SMG-Routing-Key}: a sticky session key; null or non-empty
 * @param targetWorker {@code X-SMG-Target-Worker}: a 0-based index into the model's workers; null or non-empty
 * @param implicitKey  the first non-empty of {@code authorization}, {@code x-forwarded-for}, {@code cookie} (see
 *                     {@link #implicitKey(String, String, String)}); null or non-empty
 * @param exact        what the engines with an exact view hold of the prompt; {@link ExactOverlay#NONE} when none
 * @param reuse        whether the prompt's new text is known to be read again by a later request: known only offline,
 *                     where the simulator sees the whole trace (the foresight ceiling); {@link Reuse#UNKNOWN} otherwise
 */
public record RoutingRequest(String text, String routingKey, String targetWorker, String implicitKey,
                             ExactOverlay exact, Reuse reuse) {

    /** What is known of a request's future: the gateway never knows it; a simulator replaying a trace does. */
    public enum Reuse { UNKNOWN, ONE_OFF, REUSED }

    public RoutingRequest {
        text = text == null ? "" : text;
        exact = exact == null ? ExactOverlay.NONE : exact;
        reuse = reuse == null ? Reuse.UNKNOWN : reuse;
        routingKey = presentOrNull(routingKey);
        targetWorker = presentOrNull(targetWorker);
        implicitKey = presentOrNull(implicitKey);
    }

    public RoutingRequest(String text, String routingKey, String targetWorker, String implicitKey) {
        this(text, routingKey, targetWorker, implicitKey, ExactOverlay.NONE, Reuse.UNKNOWN);
    }

    public RoutingRequest(String text, String routingKey, String targetWorker, String implicitKey,
                          ExactOverlay exact) {
        this(text, routingKey, targetWorker, implicitKey, exact, Reuse.UNKNOWN);
    }

    /** This request with the exact view {@code overlay}. */
    public RoutingRequest withExact(ExactOverlay overlay) {
        return new RoutingRequest(text, routingKey, targetWorker, implicitKey, overlay, reuse);
    }

    /** This request with its future {@code known}. */
    public RoutingRequest withReuse(Reuse known) {
        return new RoutingRequest(text, routingKey, targetWorker, implicitKey, exact, known);
    }

    public static RoutingRequest ofText(String text) {
        return new RoutingRequest(text, null, null, null);
    }

    /**
     * The implicit session key of a request without {@code X-SMG-Routing-Key}: the first of these header values that
     * is present and not empty, or null. An empty {@code authorization} does not hide the client's address.
     */
    public static String implicitKey(String authorization, String forwardedFor, String cookie) {
        String key = presentOrNull(authorization);
        key = key != null ? key : presentOrNull(forwardedFor);
        return key != null ? key : presentOrNull(cookie);
    }

    private static String presentOrNull(String header) {
        return header == null || header.isEmpty() ? null : header;
    }
}
