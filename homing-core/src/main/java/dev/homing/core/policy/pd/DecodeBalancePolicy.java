package dev.homing.core.policy.pd;

import dev.homing.core.policy.AvailableWorkersPolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.EngineReport;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code decode_balance}: the decode leg of a prefill/decode pair. A decode engine receives the prompt's KV by
 * transfer, so no prefix of its own is worth aiming at; what it has to share out is decode work. Each request goes
 * to the available worker with the fewest requests in flight (the driver's count, which holds every placement not yet
 * ended); among those tied, to the one holding the fewest characters of context in flight (the routing text of the
 * requests this policy placed there and that have not ended: a decode step costs per token of context in its batch);
 * the rest of a tie is broken at random, so equal workers share a burst. Branch {@code fewest_running}.
 *
 * <p>The gateway's decode leg and the offline simulator's PD runs place with this same rule.
 *
 * <p>Invariant: a worker's context characters go up by a request's text when this policy places it and down by the
 * same amount at its end ({@link #onCompleted}, which the placement protocol calls exactly once a request), so they
 * cannot drift; a worker that leaves is forgotten. Thread-safe: the counters are atomic in a concurrent map, and the
 * picker is thread-safe.
 */
public final class DecodeBalancePolicy extends AvailableWorkersPolicy {

    public static final String NAME = "decode_balance";
    public static final String BRANCH = "fewest_running";
    /** Context characters are compared below the in-flight count: 2^40 characters is far beyond any fleet's. */
    private static final int CONTEXT_BITS = 40;
    private static final long CONTEXT_CAP = (1L << CONTEXT_BITS) - 1;

    private final Map<String, AtomicLong> contextChars = new ConcurrentHashMap<>();

    public DecodeBalancePolicy(PolicyConfig config) {
        super(NAME, config);
    }

    @Override
    protected Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        int chosen = picker.lowest(workers, worker -> ((long) worker.inFlight() << CONTEXT_BITS)
                | Math.min(CONTEXT_CAP, context(worker.id()).get()));
        context(workers.get(chosen).id()).addAndGet(request.text().length());
        return Decision.of(chosen, BRANCH);
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        AtomicLong chars = contextChars.get(workerId);
        if (chars != null) {
            chars.addAndGet(-request.text().length());
        }
    }

    @Override
    public void onWorkerRemoved(String workerId) {
        contextChars.remove(workerId);
    }

    /** Characters of context in flight on {@code workerId} that this policy placed. */
    public long contextChars(String workerId) {
        AtomicLong chars = contextChars.get(workerId);
        return chars == null ? 0 : chars.get();
    }

    private AtomicLong context(String workerId) {
        return contextChars.computeIfAbsent(workerId, id -> new AtomicLong());
    }
}
