package dev.homing.gateway.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

class JvmMetricSetTest {

    @Test
    void theJvmMetricsAreThereWithoutTheNativeMemoryOnesWhenTrackingIsOff() {
        PrometheusRegistry registry = new PrometheusRegistry();

        JvmMetricSet.register(registry);

        assertThat(registry.scrape().stream().map(snapshot -> snapshot.getMetadata().getPrometheusName()))
                .contains("jvm_memory_used_bytes", "jvm_threads_current", "jvm_gc_collection_seconds",
                        "process_cpu_seconds", "jvm_runtime")
                .noneMatch(name -> name.startsWith("jvm_native_memory"));
    }
}
