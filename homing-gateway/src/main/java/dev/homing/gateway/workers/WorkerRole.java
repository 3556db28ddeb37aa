package dev.homing.gateway.workers;

import java.util.Locale;

/**
 * What a worker does for a request: all of it ({@link #REGULAR}), or one leg of a prefill/decode pair. The worker
 * API's {@code worker_type} names it; each role of a model has its own pool, policy and prefix tree.
 */
public enum WorkerRole {
    /** Serves a request whole. */
    REGULAR,
    /** Computes the prompt and hands its KV to the decode worker of the same bootstrap room. */
    PREFILL,
    /** Receives the prompt's KV from the prefill worker and generates the answer the client gets. */
    DECODE;

    /** {@code regular}, {@code prefill}, {@code decode}: the worker API's {@code worker_type} and metrics labels. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The role a {@code worker_type} names.
     *
     * @throws IllegalArgumentException for any other text
     */
    public static WorkerRole of(String workerType) {
        for (WorkerRole role : values()) {
            if (role.label().equals(workerType)) {
                return role;
            }
        }
        throw new IllegalArgumentException("worker_type must be regular, prefill or decode, got '" + workerType + "'");
    }
}
