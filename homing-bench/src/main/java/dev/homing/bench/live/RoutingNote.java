package dev.homing.bench.live;

import io.vertx.core.MultiMap;

/**
 * What a Homing gateway said of its decision for one request: the view that judged the chosen worker and the share
 * of the prompt it expected that worker's engine to hold. Read from the response headers Homing documents
 * (docs/KV_EVENTS.md); any other server sends none, and the note is absent.
 *
 * @param view         {@code exact} or {@code approximate}
 * @param predictedHit the predicted share of the prompt cached, 0 to 1
 */
public record RoutingNote(String view, double predictedHit) {

    static final String VIEW_HEADER = "x-homing-routing-view";
    static final String PREDICTED_HIT_HEADER = "x-homing-predicted-hit";

    /** The note in {@code headers}, or null when the server gave none (or a prediction that is not a number). */
    static RoutingNote of(MultiMap headers) {
        String view = headers.get(VIEW_HEADER);
        String predicted = headers.get(PREDICTED_HIT_HEADER);
        if (view == null || predicted == null) {
            return null;
        }
        try {
            return new RoutingNote(view, Double.parseDouble(predicted));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
