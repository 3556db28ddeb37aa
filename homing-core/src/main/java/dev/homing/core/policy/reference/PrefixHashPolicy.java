package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.SeededPolicy;
import dev.homing.core.policy.WorkerView;

import java.util.List;

/**
 * {@code prefix_hash}: requests that start alike go to the same worker, unless it is overloaded.
 *
 * <p>The reference hashes the first {@code --prefix-token-count} token ids, and over HTTP it has no tokens, so it
 * refuses every request there. Homing hashes the routing text instead: its first {@code prefixTokenCount * 4}
 * characters, about four characters a token for English text under common BPE tokenizers, or the whole text if it
 * is shorter. That hash picks a worker on the {@link HashRing} (unavailable workers skipped).
 *
 * <p>Load is the gateway's in-flight count. A worker is acceptable when its load is at most
 * {@code (totalLoad + 1) / n * prefixHashLoadFactor}, with {@code totalLoad} and {@code n} over the available workers
 * (the +1 counts the request being placed, so an idle fleet accepts anyone). The ring's worker is taken if it is
 * acceptable (branch {@code ring_hit}); otherwise the walk continues clockwise to the first acceptable worker
 * ({@code load_balance_walk}); if none is, the least-loaded worker ({@code fallback_least_load}). An empty text goes
 * to the least-loaded worker, ties broken at random ({@code no_tokens}: the reference's name, from when it hashed
 * tokens).
 *
 * <p>Thread-safe: the ring and the seeded picker are; nothing else is kept.
 */
public final class PrefixHashPolicy extends SeededPolicy {

    public static final String NAME = "prefix_hash";
    /** Roughly how many characters one token spans, to turn the token count flag into a text length. */
    public static final int CHARS_PER_TOKEN = 4;

    private final HashRing ring = new HashRing();
    private final long prefixChars;
    private final double loadFactor;

    public PrefixHashPolicy(PolicyConfig config) {
        super(NAME, config);
        this.prefixChars = (long) config.prefixTokenCount() * CHARS_PER_TOKEN;
        this.loadFactor = config.prefixHashLoadFactor();
    }

    @Override
    public Decision select(List<WorkerView> workers, RoutingRequest request) {
        int available = 0;
        long totalLoad = 0;
        for (WorkerView worker : workers) {
            if (worker.available()) {
                available++;
                totalLoad += worker.inFlight();
            }
        }
        if (available == 0) {
            return Decision.noHealthyWorkers();
        }
        String text = request.text();
        if (text.isEmpty()) {
            return Decision.of(picker.lowest(workers, WorkerView::inFlight), "no_tokens");
        }
        long position = HashRing.hash(text, (int) Math.min(text.length(), prefixChars));
        double limit = (totalLoad + 1.0) / available * loadFactor;
        int onRing = ring.walk(workers, position, WorkerView::available);
        if (workers.get(onRing).inFlight() <= limit) {
            return Decision.of(onRing, "ring_hit");
        }
        int walked = ring.walk(workers, position, worker -> worker.available() && worker.inFlight() <= limit);
        if (walked != Decision.NONE) {
            return Decision.of(walked, "load_balance_walk");
        }
        return Decision.of(picker.lowest(workers, WorkerView::inFlight), "fallback_least_load");
    }
}
