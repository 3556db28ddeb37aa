package dev.homing.gateway.workers;

import java.util.Map;

/**
 * A worker as an operator describes it ({@code --worker-urls} or {@code POST /workers}).
 *
 * @param url      base URL, {@code http://host:port}
 * @param apiKey   sent to the worker as Bearer, never logged; null for none
 * @param modelId  the model it serves; null to learn it from the worker
 * @param labels   free-form labels, shown in {@code GET /workers}
 * @param priority shown in {@code GET /workers}; routing does not read it yet
 */
public record WorkerSpec(String url, String apiKey, String modelId, Map<String, String> labels, int priority) {

    public static final int DEFAULT_PRIORITY = 50;

    public WorkerSpec {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public static WorkerSpec of(String url, String apiKey) {
        return new WorkerSpec(url, apiKey, null, Map.of(), DEFAULT_PRIORITY);
    }
}
