package dev.homing.gateway.replica;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.gateway.workers.WorkerRole;
import org.junit.jupiter.api.Test;

class ReplicaSyncKeyTest {

    @Test
    void aRegularPoolIsKeptInStepUnderItsModelAlone() {
        assertThat(ReplicaSync.key("llama", WorkerRole.REGULAR)).isEqualTo("llama");
    }

    @Test
    void aPrefillPoolAndADecodePoolOfOneModelAreKeptInStepApart() {
        String prefill = ReplicaSync.key("llama", WorkerRole.PREFILL);
        String decode = ReplicaSync.key("llama", WorkerRole.DECODE);

        assertThat(prefill).isNotEqualTo(decode).isNotEqualTo("llama").startsWith("llama");
        assertThat(decode).isNotEqualTo("llama").startsWith("llama");
        assertThat(ReplicaSync.key("llama", WorkerRole.PREFILL)).isEqualTo(prefill);
    }
}
