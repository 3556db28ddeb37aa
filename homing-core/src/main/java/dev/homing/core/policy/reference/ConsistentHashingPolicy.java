package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerPicker;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code consistent_hashing}: routes by the first of these the request carries.
 * <ol>
 *   <li>{@code X-SMG-Target-Worker}: a 0-based index into the model's workers. A missing, malformed or unavailable
 *       target is refused (no worker), never silently rerouted: the caller asked for that worker.</li>
 *   <li>{@code X-SMG-Routing-Key}: its place on the {@link HashRing}.</li>
 *   <li>The implicit key ({@code authorization}, {@code x-forwarded-for} or {@code cookie}): its place on the ring.
 *       The reference has no label of its own for this path and counts it as a routing-key hit; so do we.</li>
 *   <li>Otherwise a random available worker.</li>
 * </ol>
 * On the ring, unavailable workers are skipped clockwise, so a key moves only while its worker is away.
 *
 * <p>Thread-safe: the ring and the seeded picker are.
 */
public final class ConsistentHashingPolicy implements RoutingPolicy {

    public static final String NAME = "consistent_hashing";
    /** Branch label: the targeted worker was available and chosen. */
    public static final String TARGET_WORKER_HIT = "target_worker_hit";
    /** Branch label: the targeted worker was missing or unavailable; no worker is chosen. */
    public static final String TARGET_WORKER_MISS = "target_worker_miss";
    /** Branch label: the routing key (or the implicit key) chose the worker on the ring. */
    public static final String ROUTING_KEY_HIT = "routing_key_hit";
    /** Branch label: no key at all; a random worker. */
    public static final String RANDOM_FALLBACK = "random_fallback";

    private final HashRing ring = new HashRing();
    private final WorkerPicker picker;

    public ConsistentHashingPolicy(PolicyConfig config) {
        this.picker = new WorkerPicker(config.seed());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        if (request.targetWorker() != null) {
            int target = parseIndex(request.targetWorker());
            return target >= 0 && target < workers.size() && workers.get(target).available()
                    ? Decision.of(target, TARGET_WORKER_HIT)
                    : Decision.none(TARGET_WORKER_MISS);
        }
        String key = request.routingKey() != null ? request.routingKey() : request.implicitKey();
        if (key != null) {
            int chosen = ring.walk(workers, HashRing.hash(key), WorkerView::available);
            return chosen == Decision.NONE ? Decision.noHealthyWorkers() : Decision.of(chosen, ROUTING_KEY_HIT);
        }
        int chosen = picker.anyAvailable(workers);
        return chosen == Decision.NONE ? Decision.noHealthyWorkers() : Decision.of(chosen, RANDOM_FALLBACK);
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
