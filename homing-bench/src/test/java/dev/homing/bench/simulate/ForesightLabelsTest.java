package dev.homing.bench.simulate;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.core.policy.RoutingRequest.Reuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ForesightLabelsTest {

    private static Workload trace(List<List<Long>> rows) {
        return new FixedWorkload("rows", IntStream.range(0, rows.size()).mapToObj(i -> new Conversation("c" + i, i, "",
                List.of(new Turn("text " + i, 0, 1, rows.get(i))))).toList());
    }

    @Test
    void aRequestIsOneOffWhenNoLaterRequestReadsABlockItBroughtFirst() {
        ForesightLabels labels = ForesightLabels.of(trace(List.of(
                List.of(1L, 2L),       // brings 1 and 2; the third request reads 2
                List.of(1L, 3L),       // brings 3, never read again
                List.of(1L, 2L, 4L),   // brings 4, never read again
                List.of(1L, 2L))));    // brings nothing new

        assertThat(labels.of("c0", 0)).isEqualTo(Reuse.REUSED);
        assertThat(labels.of("c1", 0)).isEqualTo(Reuse.ONE_OFF);
        assertThat(labels.of("c2", 0)).isEqualTo(Reuse.ONE_OFF);
        assertThat(labels.of("c3", 0)).isEqualTo(Reuse.ONE_OFF);
        assertThat(labels.of("c9", 0)).isEqualTo(Reuse.UNKNOWN);
    }

    @Test
    void aWorkloadWithoutBlockIdsHasNoLabels() {
        assertThat(ForesightLabels.of(trace(List.of(List.of(), List.of()))).isEmpty()).isTrue();
    }
}
