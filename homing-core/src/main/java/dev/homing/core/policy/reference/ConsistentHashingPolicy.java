package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.SeededPolicy;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code consistent_hashing}: routes by the first of these the request carries (an empty header counts as absent).
 * <ol>
 *   <li>{@code X-SMG-Target-Worker}: a 0-based index into the model's workers ({@code target_worker_hit}). A
 *       malformed or unavailable target is refused (no worker, {@code target_worker_miss}), never silently rerouted:
 *       the caller asked for that worker.</li>
 *   <li>{@code X-SMG-Routing-Key}: its place on the {@link HashRing} ({@code routing_key_hit}).</li>
 *   <li>The implicit key ({@code authorization}, {@code x-forwarded-for} or {@code cookie}): its place on the ring.
 *       The reference has no label of its own for this path and counts it as a routing-key hit; so do we.</li>
 *   <li>Otherwise a random available worker ({@code random_fallback}).</li>
 * </ol>
 * On the ring, unavailable workers are skipped clockwise, so a key moves only while its worker is away.
 *
 * <p>Thread-safe: the ring and the seeded picker are.
 */
public final class ConsistentHashingPolicy extends SeededPolicy {

    public static final String NAME = "consistent_hashing";

    private final HashRing ring = new HashRing();

    public ConsistentHashingPolicy(PolicyConfig config) {
        super(NAME, config);
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        if (request.targetWorker() != null) {
            int target = parseIndex(request.targetWorker());
            return target >= 0 && target < workers.size() && workers.get(target).available()
                    ? Decision.of(target, "target_worker_hit")
                    : Decision.none("target_worker_miss");
        }
        String key = request.routingKey() != null ? request.routingKey() : request.implicitKey();
        int chosen = key != null ? ring.walk(workers, HashRing.hash(key), WorkerView::available)
                : picker.anyAvailable(workers);
        return chosen == Decision.NONE ? Decision.noHealthyWorkers()
                : Decision.of(chosen, key != null ? "routing_key_hit" : "random_fallback");
    }

    /** The header's index, or -1 when it is not a non-negative decimal int. */
    private static int parseIndex(String header) {
        try {
            return Integer.parseInt(header.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
