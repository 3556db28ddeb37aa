package dev.homing.gateway.workers;

import dev.homing.config.WorkerUrls;
import dev.homing.core.placement.InFlightCount;
import dev.homing.core.placement.PlacementTarget;
import dev.homing.core.policy.WorkerView;

import java.net.InetAddress;
import java.util.Map;

/**
 * A registered worker and its live state. The in-flight count only moves through the placements made on it (the
 * core's {@code Placement}), so it cannot drift. Its target's address is fixed once ({@link #pin}, or at
 * construction), before the worker can become active: every connection to an active worker goes to that one
 * address. A worker that is one data-parallel rank of an engine ({@code url@rank}) is a worker of its own: its own
 * tenant in the prefix tree, in-flight count and circuit breaker, while its target is the engine's address. Fields
 * are volatile or atomic: the data plane reads them from every event loop, the health checker and the registry write
 * them.
 */
public final class Worker implements PlacementTarget {

    /** Where a worker is in its life. */
    public enum State {
        /** Registered, model not known yet: takes no traffic. */
        PENDING,
        /** Takes traffic while healthy. */
        ACTIVE,
        /** Going away: takes no new traffic; requests already sent finish, then it is removed. */
        DRAINING,
        /** Removed: takes no new traffic; requests already sent finish. */
        REMOVED
    }

    private final String id;
    private final String url;
    private final WorkerRole role;
    /** The rank of the engine this worker is, or null for a whole engine. */
    private final Integer dpRank;
    /** A prefill worker's bootstrap port: given, or learnt before it takes traffic; null while unknown. */
    private volatile Integer bootstrapPort;
    private volatile UpstreamTarget target;
    private final ConnectGate connectGate = new ConnectGate(ConnectGate.DEFAULT_LIMIT);
    private volatile Map<String, String> labels;
    private volatile int priority;
    private final InFlightCount inFlight = new InFlightCount();
    private volatile String modelId;
    private volatile State state = State.PENDING;
    private volatile boolean healthy;
    private volatile long reportedLoad = WorkerView.UNKNOWN_LOAD;
    private volatile int consecutiveFailures;
    private volatile int consecutiveSuccesses;
    /** Why the last probe or health check of it failed ({@link ProbeFailure}); null since one succeeded. */
    private volatile String unreachableReason;

    Worker(String id, WorkerSpec spec) {
        this(id, spec, null);
    }

    /** A worker whose connections go to {@code address} (null: its host is resolved later, see {@link #pin}). */
    Worker(String id, WorkerSpec spec, InetAddress address) {
        this.id = id;
        this.url = spec.url();
        this.role = spec.role();
        this.dpRank = spec.dpRank();
        this.bootstrapPort = spec.bootstrapPort();
        UpstreamTarget parsed = UpstreamTarget.of(WorkerUrls.engine(spec.url()), spec.apiKey());
        this.target = address == null ? parsed : parsed.at(address);
        this.labels = spec.labels();
        this.priority = spec.priority();
        this.modelId = spec.modelId();
    }

    @Override
    public String id() {
        return id;
    }

    public String url() {
        return url;
    }

    public WorkerRole role() {
        return role;
    }

    /** The data-parallel rank to ask of the engine ({@code data_parallel_rank}), or null for a whole engine. */
    public Integer dpRank() {
        return dpRank;
    }

    /** A prefill worker's bootstrap port, or null when neither given nor reported. */
    public Integer bootstrapPort() {
        return bootstrapPort;
    }

    /** The port the worker reported, kept unless one was given; only while it takes no traffic. */
    void learnBootstrapPort(int port) {
        if (state == State.PENDING && bootstrapPort == null && role == WorkerRole.PREFILL) {
            bootstrapPort = port;
        }
    }

    /**
     * Where requests to this worker go, parsed once from its URL (the engine's, for a rank), with its own API key's
     * header.
     */
    public UpstreamTarget target() {
        return target;
    }

    /**
     * Fixes the address of a worker whose URL names its host, as resolved at registration; only while it is pending
     * (takes no traffic) and only once, so the address an active worker is reached at never changes.
     */
    void pin(InetAddress address) {
        if (state == State.PENDING && target.needsAddress()) {
            target = target.at(address);
        }
    }

    /** Bounds the connections being opened to this worker at once (inference requests only). */
    public ConnectGate connectGate() {
        return connectGate;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public int priority() {
        return priority;
    }

    /** Changes what {@code PUT /workers/{id}} may change: labels and priority. */
    public void update(Map<String, String> newLabels, Integer newPriority) {
        if (newLabels != null) {
            labels = Map.copyOf(newLabels);
        }
        if (newPriority != null) {
            priority = newPriority;
        }
    }

    public String modelId() {
        return modelId;
    }

    void modelId(String model) {
        this.modelId = model;
    }

    public State state() {
        return state;
    }

    void state(State newState) {
        this.state = newState;
    }

    public boolean healthy() {
        return healthy;
    }

    void healthy(boolean value) {
        this.healthy = value;
    }

    /** May take a new request now. */
    public boolean available() {
        return state == State.ACTIVE && healthy;
    }

    /** Requests placed on this worker and not yet ended, held ones included. */
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public InFlightCount inFlightCount() {
        return inFlight;
    }

    public long reportedLoad() {
        return reportedLoad;
    }

    void reportedLoad(long load) {
        this.reportedLoad = load;
    }

    /**
     * The worker refused a connection: it takes no traffic until health probes see it well again (the success
     * threshold in a row), rather than after failure-threshold probes as a silent death would.
     */
    public void markUnreachable() {
        consecutiveSuccesses = 0;
        healthy = false;
    }

    /** Why the last probe or health check of this worker failed, or null when the last one succeeded. */
    public String unreachableReason() {
        return unreachableReason;
    }

    /**
     * Records why a probe or health check failed; returns whether the reason is new (the first failure, or another
     * reason than the last), which is what the log tells: one line per change, not one per attempt.
     */
    boolean failed(String reason) {
        boolean changed = !reason.equals(unreachableReason);
        unreachableReason = reason;
        return changed;
    }

    /** A probe or health check succeeded; returns the reason the one before it had failed for, or null. */
    String reached() {
        String was = unreachableReason;
        unreachableReason = null;
        return was;
    }

    /** Records a health probe; returns the new health if it changed, else null. Called from one thread at a time. */
    Boolean recordProbe(boolean ok, int failureThreshold, int successThreshold) {
        if (ok) {
            consecutiveFailures = 0;
            consecutiveSuccesses++;
            if (!healthy && consecutiveSuccesses >= successThreshold) {
                healthy = true;
                return true;
            }
        } else {
            consecutiveSuccesses = 0;
            consecutiveFailures++;
            if (healthy && consecutiveFailures >= failureThreshold) {
                healthy = false;
                return false;
            }
        }
        return null;
    }

    /** The worker as a policy sees it: its URL is its id there. */
    @Override
    public WorkerView view() {
        return new WorkerView(url, available(), inFlight.acrossReplicas(), reportedLoad);
    }

    @Override
    public String toString() {
        return "Worker[" + id + " " + url + " " + role.label() + " model=" + modelId + " " + state
                + (healthy ? " healthy" : "") + "]";
    }
}
