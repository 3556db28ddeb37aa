package dev.homing.gateway.workers;

import dev.homing.config.WorkerUrls;

import java.util.Map;

/**
 * A worker as an operator describes it ({@code --worker-urls}, {@code --prefill}, {@code --decode},
 * {@code POST /workers} or a discovered pod).
 *
 * @param url           base URL, {@code http://host:port}, with {@code @rank} for one data-parallel rank
 * @param apiKey        sent to the worker as Bearer, never logged; null for none
 * @param modelId       the model it serves; null to learn it from the worker
 * @param labels        free-form labels, shown in {@code GET /workers}
 * @param priority      shown in {@code GET /workers}; routing does not read it yet
 * @param role          what it does for a request
 * @param bootstrapPort a prefill worker's bootstrap port when the operator gave it; null to learn it from the
 *                      worker (and always null for other roles)
 */
public record WorkerSpec(String url, String apiKey, String modelId, Map<String, String> labels, int priority,
                         WorkerRole role, Integer bootstrapPort) {

    public static final int DEFAULT_PRIORITY = 50;

    public WorkerSpec {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        if (bootstrapPort != null && role != WorkerRole.PREFILL) {
            throw new IllegalArgumentException("only a prefill worker has a bootstrap port");
        }
    }

    /** A regular worker. */
    public WorkerSpec(String url, String apiKey, String modelId, Map<String, String> labels, int priority) {
        this(url, apiKey, modelId, labels, priority, WorkerRole.REGULAR, null);
    }

    public static WorkerSpec of(String url, String apiKey) {
        return new WorkerSpec(url, apiKey, null, Map.of(), DEFAULT_PRIORITY);
    }

    /** A worker of {@code role} with nothing else said of it. */
    public static WorkerSpec of(String url, String apiKey, WorkerRole role, Integer bootstrapPort) {
        return new WorkerSpec(url, apiKey, null, Map.of(), DEFAULT_PRIORITY, role, bootstrapPort);
    }

    /** The data-parallel rank the URL names, or null for a whole engine. */
    public Integer dpRank() {
        return WorkerUrls.rank(url);
    }
}
