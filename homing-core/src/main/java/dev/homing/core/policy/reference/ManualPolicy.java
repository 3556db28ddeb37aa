package dev.homing.core.policy.reference;

import dev.homing.core.policy.AvailableWorkersPolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code manual}: sticky sessions on the {@code X-SMG-Routing-Key} header.
 *
 * <p>Each routing key remembers up to {@value #MAX_CANDIDATES} candidate workers, oldest first, and when it was last
 * used. A request goes to the newest available candidate ({@code occupied_hit}): the worker that served the key last
 * holds the longest cached prefix of its conversation. Unlike the reference, a key that moved because its worker was
 * away stays on the replacement when the original recovers (docs/DIFFERENCES.md says why). When no candidate is
 * available a new worker is assigned and appended, dropping the oldest ({@code occupied_miss}), so a key returns to
 * its previous worker if the new one fails. A key not seen before is assigned a worker ({@code vacant}); a request
 * without a key is assigned afresh each time ({@code no_routing_id}). Assignment follows
 * {@link PolicyConfig#assignmentMode}: random, fewest in-flight requests, or fewest active routing keys; ties at
 * random. Adding workers never moves a key: only unavailability does. {@link #maintain()} forgets keys idle longer
 * than {@code maxIdleSecs}.
 *
 * <p>Invariant: {@code keysPerWorker.get(w)} is the number of sessions that list {@code w} as a candidate (absent for
 * zero). It is changed only inside the {@code sessions} map's atomic compute for the session concerned, so each
 * session's contribution is added and removed exactly once.
 *
 * <p>Thread-safe: both maps are concurrent and a session changes only inside its own atomic compute. Two new keys
 * assigned at once by {@code min_group} may both see the same counts and pick the same worker; that race costs
 * balance, never correctness.
 */
public final class ManualPolicy extends AvailableWorkersPolicy {

    public static final String NAME = "manual";
    /** Candidates remembered per key: the current worker and the one before it. */
    public static final int MAX_CANDIDATES = 2;

    private final ConcurrentHashMap<String, Session> sessions = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Integer> keysPerWorker = new ConcurrentHashMap<>();
    private final PolicyConfig.AssignmentMode mode;
    private final long maxIdleNanos;
    private final LongSupplier nanoClock;

    public ManualPolicy(PolicyConfig config, LongSupplier nanoClock) {
        super(NAME, config);
        this.mode = config.assignmentMode();
        this.maxIdleNanos = TimeUnit.SECONDS.toNanos(config.maxIdleSecs());
        this.nanoClock = nanoClock;
    }

    @Override
    protected Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        String key = request.routingKey();
        if (key == null) {
            return Decision.of(assign(workers), "no_routing_id");
        }
        long now = nanoClock.getAsLong();
        Decision[] decision = new Decision[1];
        sessions.compute(key, (k, old) -> {
            if (old != null) {
                int current = newestAvailableCandidate(old, workers);
                if (current != Decision.NONE) {
                    decision[0] = Decision.of(current, "occupied_hit");
                    return new Session(old.candidates, now);
                }
            }
            // An available worker is never among the candidates here, so the assigned one is always new to the key.
            int assigned = assign(workers);
            decision[0] = Decision.of(assigned, old == null ? "vacant" : "occupied_miss");
            return new Session(appendCandidate(old, workers.get(assigned).id()), now);
        });
        return decision[0];
    }

    /** Forgets routing keys idle longer than {@code maxIdleSecs}. */
    @Override
    public void maintain() {
        long now = nanoClock.getAsLong();
        for (String key : sessions.keySet()) {
            sessions.computeIfPresent(key, (k, session) -> {
                if (now - session.lastAccessNanos <= maxIdleNanos) {
                    return session;
                }
                session.candidates.forEach(this::countKeyRemoved);
                return null;
            });
        }
    }

    /** Drops the worker from every key; a key left with no candidate is forgotten. */
    @Override
    public void onWorkerRemoved(String workerId) {
        for (String key : sessions.keySet()) {
            sessions.computeIfPresent(key, (k, session) -> {
                if (!session.candidates.contains(workerId)) {
                    return session;
                }
                countKeyRemoved(workerId);
                List<String> rest = session.candidates.stream().filter(id -> !id.equals(workerId)).toList();
                return rest.isEmpty() ? null : new Session(rest, session.lastAccessNanos);
            });
        }
    }

    /** The number of routing keys remembered (metric {@code smg_manual_policy_cache_entries}). */
    public int cacheEntries() {
        return sessions.size();
    }

    /**
     * Per worker id, the routing keys that list it as a candidate; workers with none are absent (metric
     * {@code smg_worker_routing_keys_active}). A snapshot.
     */
    public Map<String, Integer> activeKeysPerWorker() {
        return Map.copyOf(keysPerWorker);
    }

    private int assign(List<WorkerView> workers) {
        return switch (mode) {
            case RANDOM -> picker.anyAvailable(workers);
            case MIN_LOAD -> picker.lowest(workers, WorkerView::inFlight);
            case MIN_GROUP -> picker.lowest(workers, worker -> keysPerWorker.getOrDefault(worker.id(), 0));
        };
    }

    /** The session's candidates with {@code workerId} appended, the oldest dropped beyond the limit; counted. */
    private List<String> appendCandidate(Session old, String workerId) {
        List<String> candidates = new ArrayList<>(MAX_CANDIDATES);
        if (old != null) {
            candidates.addAll(old.candidates);
        }
        candidates.add(workerId);
        countKeyAdded(workerId);
        if (candidates.size() > MAX_CANDIDATES) {
            countKeyRemoved(candidates.removeFirst());
        }
        return List.copyOf(candidates);
    }

    private static int newestAvailableCandidate(Session session, List<WorkerView> workers) {
        for (int c = session.candidates.size() - 1; c >= 0; c--) {
            String id = session.candidates.get(c);
            for (int i = 0; i < workers.size(); i++) {
                if (workers.get(i).available() && workers.get(i).id().equals(id)) {
                    return i;
                }
            }
        }
        return Decision.NONE;
    }

    private void countKeyAdded(String workerId) {
        keysPerWorker.merge(workerId, 1, Integer::sum);
    }

    private void countKeyRemoved(String workerId) {
        keysPerWorker.computeIfPresent(workerId, (id, count) -> count == 1 ? null : count - 1);
    }

    /** A routing key's candidate worker ids, oldest first, and its last use on the policy's clock. */
    private record Session(List<String> candidates, long lastAccessNanos) {
    }
}
