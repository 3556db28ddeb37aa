package dev.homing.gateway.metrics;

import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryPoolAllocationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmNativeMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.lang.management.ManagementFactory;

/**
 * The JVM's metrics: Prometheus' {@code JvmMetrics} set, without the native-memory ones unless native memory tracking
 * is on. Those ask the JVM whether it tracks through a JMX diagnostic command, which starts the platform MBean server
 * and took about a tenth of the gateway's start-up, to export nothing when tracking is off (the default).
 */
final class JvmMetricSet {

    private JvmMetricSet() {
    }

    static void register(PrometheusRegistry registry) {
        JvmThreadsMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmMemoryPoolAllocationMetrics.builder().register(registry);
        JvmMemoryMetrics.builder().register(registry);
        if (nativeMemoryTracking()) {
            JvmNativeMemoryMetrics.builder().register(registry);
        }
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
    }

    private static boolean nativeMemoryTracking() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(arg -> arg.startsWith("-XX:NativeMemoryTracking=")
                        && !arg.equals("-XX:NativeMemoryTracking=off"));
    }
}
