package dev.homing.gateway.metrics;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class EngineMetricsMergeTest {

    private static final String WORKER_TEXT = """
            # HELP sglang:num_running_reqs Running requests
            # TYPE sglang:num_running_reqs gauge
            sglang:num_running_reqs{model_name="m"} 3
            # HELP sglang:e2e_seconds Latency
            # TYPE sglang:e2e_seconds histogram
            sglang:e2e_seconds_bucket{le="1.0"} 2
            sglang:e2e_seconds_sum 1.5
            sglang:e2e_seconds_count 2
            """;

    @Test
    void eachSampleGetsItsWorkersAddress() {
        String merged = new EngineMetricsMerge().add("http://a:1", WORKER_TEXT).text();

        assertThat(merged).contains("sglang:num_running_reqs{worker_addr=\"http://a:1\",model_name=\"m\"} 3")
                .contains("sglang:e2e_seconds_sum{worker_addr=\"http://a:1\"} 1.5");
    }

    @Test
    void theSamplesOfOneFamilyStayTogetherUnderOneHeader() {
        String merged = new EngineMetricsMerge().add("http://a:1", WORKER_TEXT).add("http://b:2", WORKER_TEXT)
                .text();

        assertThat(merged.split("# TYPE sglang:num_running_reqs gauge", -1)).hasSize(2);
        int a = merged.indexOf("sglang:num_running_reqs{worker_addr=\"http://a:1\"");
        int b = merged.indexOf("sglang:num_running_reqs{worker_addr=\"http://b:2\"");
        int histogram = merged.indexOf("# TYPE sglang:e2e_seconds histogram");
        assertThat(a).isLessThan(histogram);
        assertThat(b).isLessThan(histogram);
    }
}
