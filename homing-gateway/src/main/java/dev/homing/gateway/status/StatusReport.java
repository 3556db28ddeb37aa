package dev.homing.gateway.status;

import java.util.List;
import java.util.Map;

/**
 * What {@code /status} shows at one instant, as the page and as JSON ({@code ?format=json}). Hit rates are shares in
 * [0, 1], null when nothing was placed on the worker (predicted) or reported by its engine (realised) in the window.
 *
 * @param windowSeconds how far back {@code history} and the window's rates reach at most
 */
record StatusReport(long generatedAtMillis, long windowSeconds, HitRates fleet, List<WorkerStatus> workers,
                    Replica replica, Discovery discovery) {

    /** The rates over the window and its points, oldest first. */
    record HitRates(Double predicted, Double realised, List<HitRateHistory.Point> history) {
    }

    /**
     * One worker.
     *
     * @param circuit     {@code closed}, {@code open} or {@code half_open}
     * @param routingView {@code exact} while its engine's KV events are trusted, else {@code approximate} (the tree)
     * @param kvEvents    its KV event stream's state ({@code exact}, {@code stale}, {@code none}), or {@code off}
     */
    record WorkerStatus(String url, String model, String role, String state, boolean healthy, String circuit,
                        int inFlight, String routingView, String kvEvents, HitRates hitRate) {
    }

    /** {@code --replica-sync}: this replica's name on the bus and where it stands with its siblings. */
    record Replica(boolean enabled, String name, String phase, boolean warm) {
        static final Replica OFF = new Replica(false, null, null, false);
    }

    /** Kubernetes discovery: whether its pod watch has listed, and the pods by what they mean to the gateway. */
    record Discovery(boolean enabled, boolean synced, Map<String, Integer> pods) {
        static final Discovery OFF = new Discovery(false, false, Map.of());
    }
}
