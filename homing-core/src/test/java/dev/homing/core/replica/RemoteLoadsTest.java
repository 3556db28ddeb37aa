package dev.homing.core.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RemoteLoadsTest {

    private final RemoteLoads loads = new RemoteLoads(1_000);

    @Test
    void theOtherReplicasCountsAddUpPerWorker() {
        loads.reported("a", Map.of("w0", 2, "w1", 1), 0);

        assertThat(loads.reported("b", Map.of("w0", 3), 0)).containsExactly(Map.entry("w0", 5));
        assertThat(loads.sum("w1")).isEqualTo(1);
    }

    @Test
    void aNewerReportReplacesAReplicasLastOneWorkersLeftOutHaveNone() {
        loads.reported("a", Map.of("w0", 2, "w1", 1), 0);

        assertThat(loads.reported("a", Map.of("w0", 2), 10)).containsExactly(Map.entry("w1", 0));
        assertThat(loads.sum("w1")).isZero();
    }

    @Test
    void aReplicaThatFellSilentLeavesNoCountBehindAfterTheExpiry() {
        loads.reported("a", Map.of("w0", 2), 0);
        loads.reported("b", Map.of("w0", 1), 900);

        assertThat(loads.expire(1_500)).containsExactly(Map.entry("w0", 1));
        assertThat(loads.replicas()).isEqualTo(1);
    }
}
