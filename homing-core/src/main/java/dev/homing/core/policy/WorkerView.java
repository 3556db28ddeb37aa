package dev.homing.core.policy;

/**
 * What a policy may know of one worker at the moment it decides: a value, copied from the gateway's live registry
 * (or the simulator's engines) for one decision.
 *
 * @param id           the worker's identity, its URL; the tenant name in the prefix tree
 * @param available    healthy and its circuit admits a request; policies never choose an unavailable worker
 * @param inFlight     requests the gateway has sent to this worker and not yet finished (the gateway's own count)
 * @param reportedLoad the load the worker itself reported (tokens in use, from {@code /get_load}); negative when
 *                     unknown, which is never read as "idle"
 */
public record WorkerView(String id, boolean available, int inFlight, long reportedLoad) {

    public static final long UNKNOWN_LOAD = -1;

    public static WorkerView available(String id, int inFlight) {
        return new WorkerView(id, true, inFlight, UNKNOWN_LOAD);
    }

    public boolean hasReportedLoad() {
        return reportedLoad >= 0;
    }
}
