package dev.homing.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyResultTest {

    @Test
    void percentilesComeFromTheDistribution() {
        PolicyResult r = PolicyResult.of("p", 0.5, LatencyCdf.ofMillis(1, 2, 3, 4), 1, 1, 0, List.of());

        assertThat(r.ttftP50Millis()).isEqualTo(2);
        assertThat(r.ttftP99Millis()).isEqualTo(4);
    }

    @Test
    void loadImbalanceIsTheBusiestWorkersTokensOverTheMean() {
        PolicyResult r = PolicyResult.of("p", 0, LatencyCdf.EMPTY, 0, 0, 0,
                List.of(new WorkerShare("a", 1, 600), new WorkerShare("b", 1, 200), new WorkerShare("c", 1, 200)));

        assertThat(r.maxOverMeanLoad()).isEqualTo(1.8);
    }

    @Test
    void noWorkersGiveNoImbalance() {
        assertThat(PolicyResult.of("p", 0, LatencyCdf.EMPTY, 0, 0, 0, List.of()).maxOverMeanLoad()).isZero();
    }
}
