package dev.homing.core.replica;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The requests other gateway replicas have in flight on each worker, from their {@link ReplicaEvent.Loads}: each
 * replica's last report stands until a newer one replaces it or it is older than the expiry, so a lost message or a
 * replica that died cannot leave a count behind for longer than that.
 *
 * <p>Each call returns the workers whose sum over the replicas changed, with the new sum, for the driver to put on
 * its workers' {@link dev.homing.core.placement.InFlightCount#elsewhere(int)}.
 *
 * <p>Thread-safe: synchronized.
 */
public final class RemoteLoads {

    private final long expiryNanos;
    private final Map<String, Report> byReplica = new HashMap<>();
    private final Map<String, Integer> sums = new HashMap<>();

    private record Report(Map<String, Integer> inFlight, long atNanos) {
    }

    /** @param expiryNanos how long a replica's report counts without a newer one */
    public RemoteLoads(long expiryNanos) {
        this.expiryNanos = expiryNanos;
    }

    /** Replica {@code replica} reports {@code inFlight} (every worker it has requests on) at {@code nowNanos}. */
    public synchronized Map<String, Integer> reported(String replica, Map<String, Integer> inFlight, long nowNanos) {
        Report previous = byReplica.put(replica, new Report(Map.copyOf(inFlight), nowNanos));
        Set<String> touched = new HashSet<>(inFlight.keySet());
        if (previous != null) {
            touched.addAll(previous.inFlight().keySet());
        }
        return resum(touched);
    }

    /** Drops the reports older than the expiry at {@code nowNanos}. */
    public synchronized Map<String, Integer> expire(long nowNanos) {
        Set<String> touched = new HashSet<>();
        Iterator<Report> it = byReplica.values().iterator();
        while (it.hasNext()) {
            Report report = it.next();
            if (nowNanos - report.atNanos() > expiryNanos) {
                touched.addAll(report.inFlight().keySet());
                it.remove();
            }
        }
        return resum(touched);
    }

    /** The requests the other replicas have on {@code worker}, together. */
    public synchronized int sum(String worker) {
        return sums.getOrDefault(worker, 0);
    }

    /** The replicas with a report that has not expired. */
    public synchronized int replicas() {
        return byReplica.size();
    }

    private Map<String, Integer> resum(Set<String> workers) {
        Map<String, Integer> changed = new HashMap<>();
        for (String worker : workers) {
            int sum = 0;
            for (Report report : byReplica.values()) {
                sum += report.inFlight().getOrDefault(worker, 0);
            }
            Integer before = sum == 0 ? sums.remove(worker) : sums.put(worker, sum);
            if (before == null ? sum != 0 : before != sum) {
                changed.put(worker, sum);
            }
        }
        return changed;
    }
}
