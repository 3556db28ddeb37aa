package dev.homing.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyCdfTest {

    @Test
    void percentilesOfRawValuesAreNearestRank() {
        LatencyCdf cdf = LatencyCdf.ofMillis(IntStream.rangeClosed(1, 1000).asDoubleStream().toArray());

        assertThat(cdf.percentile(0.5)).isEqualTo(500);
        assertThat(cdf.percentile(0.99)).isEqualTo(990);
        assertThat(cdf.percentile(1.0)).isEqualTo(1000);
        assertThat(cdf.points()).hasSize(LatencyCdf.QUANTILES);
    }

    @Test
    void aHistogramGivesTheSameGridInMilliseconds() {
        Histogram micros = new Histogram(3);
        for (int ms = 1; ms <= 1000; ms++) {
            micros.recordValue(ms * 1000L);
        }

        LatencyCdf cdf = LatencyCdf.ofHistogram(micros, 1000.0);

        assertThat(cdf.points()).hasSize(LatencyCdf.QUANTILES);
        assertThat(cdf.percentile(0.5)).isBetween(499.0, 501.0);
        assertThat(cdf.percentile(0.99)).isBetween(989.0, 991.0);
    }

    @Test
    void fewerSamplesThanGridPointsRepeatValues() {
        LatencyCdf cdf = LatencyCdf.ofMillis(10, 20);

        assertThat(cdf.percentile(0.5)).isEqualTo(10);
        assertThat(cdf.percentile(0.51)).isEqualTo(20);
    }

    @Test
    void noSamplesGiveAnEmptyDistributionWithZeroPercentiles() {
        assertThat(LatencyCdf.ofMillis().hasSamples()).isFalse();
        assertThat(LatencyCdf.ofHistogram(new Histogram(3), 1).percentile(0.5)).isZero();
    }
}
