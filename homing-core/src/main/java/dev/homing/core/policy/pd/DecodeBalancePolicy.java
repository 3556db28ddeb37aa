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
 * {@code decode_balance}: the decode leg's placement in prefill/decode disaggregation, the same rule in the gateway
 * and the offline simulator. A decode engine's step time grows with the KV its running requests hold (every context
 * token is read each step) and the batch it runs, and a decode engine has no prefix cache to aim at; so each request
 * goes to the available worker holding the least outstanding work: the routing-text characters (about four a token)
 * of the requests placed there and not yet ended, at least one per request so that a request without text counts.
 * Ties (an idle fleet) are broken at random by the seeded picker, so worker 0 is not everyone's first choice.
 *
 * <p>Invariant: a worker's outstanding work is the sum over its requests placed and not yet ended; it is added at
 * the decision and taken back once by {@link #onCompleted}, which the placement protocol calls exactly once a
 * request, refused choices included. A removed worker's count is forgotten.
 *
 * <p>Thread-safe: the counts are atomic, per worker; two concurrent decisions may both see the same least-loaded
 * worker, as any load-reading policy may.
 */
public final class DecodeBalancePolicy extends AvailableWorkersPolicy {

    public static final String NAME = "decode_balance";
    /** The branch of every decision that found a worker. */
    public static final String BRANCH = "least_outstanding";

    private final Map<String, AtomicLong> outstanding = new ConcurrentHashMap<>();

    public DecodeBalancePolicy(PolicyConfig config) {
        super(NAME, config);
    }

    @Override
    protected Decision choose(List<WorkerView> workers, int available, RoutingRequest request) {
        int chosen = picker.lowest(workers, worker -> outstanding(worker.id()).get());
        outstanding(workers.get(chosen).id()).addAndGet(weight(request));
        return new Decision(chosen, BRANCH, 0, request.text().length());
    }

    @Override
    public void onCompleted(String workerId, RoutingRequest request, Decision decision, EngineReport report) {
        AtomicLong count = outstanding.get(workerId);
        if (count != null) {
            count.addAndGet(-weight(request));
        }
    }

    @Override
    public void onWorkerRemoved(String workerId) {
        outstanding.remove(workerId);
    }

    /** The outstanding work on {@code workerId}, in characters. */
    public long outstandingOn(String workerId) {
        AtomicLong count = outstanding.get(workerId);
        return count == null ? 0 : count.get();
    }

    private AtomicLong outstanding(String workerId) {
        return outstanding.computeIfAbsent(workerId, id -> new AtomicLong());
    }

    private static long weight(RoutingRequest request) {
        return Math.max(1, request.text().length());
    }
}
