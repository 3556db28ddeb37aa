package dev.homing.gateway.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

class HitRateHistoryTest {

    private static final String A = "http://127.0.0.1:30001";
    private static final String B = "http://127.0.0.1:30002";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter routed = counter("homing_routed_chars_total");
    private final Counter predicted = counter("homing_predicted_cached_chars_total");
    private final Counter prompt = counter("homing_prompt_tokens_total");
    private final Counter cached = counter("homing_cached_tokens_total");
    private final HitRateHistory history = new HitRateHistory(registry);

    private Counter counter(String name) {
        return Counter.builder().name(name).labelNames("model", "worker").register(registry);
    }

    private void traffic(String worker, String model, long chars, long held, long tokens, long hit) {
        routed.labelValues(model, worker).inc(chars);
        predicted.labelValues(model, worker).inc(held);
        prompt.labelValues(model, worker).inc(tokens);
        cached.labelValues(model, worker).inc(hit);
    }

    @Test
    void eachPointIsTheRateBetweenTwoSamplesAndTheLastRunsToNow() {
        history.sample(Set.of(A), 0);
        traffic(A, "m1", 100, 80, 50, 20);
        traffic(A, "m2", 100, 0, 50, 30);
        history.sample(Set.of(A), 10_000);
        traffic(A, "m1", 10, 10, 10, 10);

        List<HitRateHistory.Point> points = history.points(A, 15_000, history.read());

        assertThat(points).containsExactly(new HitRateHistory.Point(10_000, 0.4, 0.5),
                new HitRateHistory.Point(15_000, 1.0, 1.0));
        assertThat(history.window(A, 15_000, history.read()))
                .isEqualTo(new HitRateHistory.Point(15_000, 90.0 / 210, 60.0 / 110));
    }

    @Test
    void anIntervalWithoutTrafficHasNoRateAndTheFleetSumsItsWorkers() {
        history.sample(Set.of(A, B), 0);
        traffic(A, "m", 100, 100, 100, 100);
        traffic(B, "m", 100, 0, 100, 0);

        history.sample(Set.of(A, B), 10_000);
        assertThat(history.points(HitRateHistory.FLEET, 20_000, history.read()))
                .containsExactly(new HitRateHistory.Point(10_000, 0.5, 0.5), new HitRateHistory.Point(20_000, null, null));
        assertThat(history.points(B, 20_000, history.read()).getLast())
                .isEqualTo(new HitRateHistory.Point(20_000, null, null));
    }

    @Test
    void aWorkerKeepsAtMostTheWindowOfSamplesAndIsForgottenOnceRemoved() {
        for (int i = 0; i < 3 * HitRateHistory.SAMPLES; i++) {
            traffic(A, "m", 10, 5, 10, 5);
            history.sample(Set.of(A, B), i * HitRateHistory.SAMPLE_MILLIS);
        }
        assertThat(history.points(A, Long.MAX_VALUE, history.read())).hasSize(HitRateHistory.SAMPLES);

        history.sample(Set.of(B), 0);

        assertThat(history.points(A, 0, history.read())).isEmpty();
        assertThat(history.points(B, 0, history.read())).isNotEmpty();
    }
}
