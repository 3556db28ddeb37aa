package dev.homing.bench.live;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EngineCountersTest {

    @Test
    void countersAreSummedOverLabelSetsAndOtherMetricsIgnored() {
        String exposition = """
                # HELP sglang:prompt_tokens_total Prompt tokens.
                # TYPE sglang:prompt_tokens_total counter
                sglang:prompt_tokens_total{model_name="a",note="has } brace"} 100.0
                sglang:prompt_tokens_total{model_name="b"} 50 1700000000000
                sglang:cached_tokens_total{model_name="a"} 60.0
                sglang:prompt_tokens_created{model_name="a"} 1.7e9
                sglang:num_requests_total 3
                """;

        EngineCounters counters = EngineCounters.parse(exposition);

        assertThat(counters).isEqualTo(new EngineCounters(150, 60, 0, 3));
        assertThat(counters.hitRate()).isEqualTo(0.4);
    }
}
