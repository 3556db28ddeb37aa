package dev.homing.gateway.metrics;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LabelCacheTest {

    @Test
    void theMetricIsAskedOncePerSeriesAndTheSamePointComesBackAfter() {
        List<List<String>> asked = new ArrayList<>();
        LabelCache<Object> cache = new LabelCache<>(labels -> {
            asked.add(List.of(labels));
            return new Object();
        });

        Object first = cache.get("model", "http://w1");
        Object again = cache.get("model", "http://w1");
        Object other = cache.get("model", "http://w2");

        assertThat(again).isSameAs(first);
        assertThat(other).isNotSameAs(first);
        assertThat(asked).containsExactly(List.of("model", "http://w1"), List.of("model", "http://w2"));
    }

    @Test
    void seriesOfOneAndThreeLabelsAreKeptApartByEveryLabel() {
        LabelCache<String> cache = new LabelCache<>(labels -> String.join("|", labels));

        assertThat(cache.get("a")).isEqualTo("a");
        assertThat(cache.get("m", "p", "hit")).isEqualTo("m|p|hit");
        assertThat(cache.get("m", "p", "miss")).isEqualTo("m|p|miss");
        assertThat(cache.get("m", "q", "hit")).isEqualTo("m|q|hit");
    }
}
