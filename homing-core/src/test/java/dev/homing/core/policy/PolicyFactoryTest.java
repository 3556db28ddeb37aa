package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PolicyFactoryTest {

    @Test
    void buildsEveryPolicyUnderItsOwnName() {
        for (String name : PolicyFactory.NAMES) {
            assertThat(PolicyFactory.create(name, Fleet.config(), new Fleet.ManualClock()).name()).isEqualTo(name);
        }
    }

    @Test
    void buildsANewInstanceEachTime() {
        assertThat(PolicyFactory.create("round_robin", Fleet.config(), System::nanoTime))
                .isNotSameAs(PolicyFactory.create("round_robin", Fleet.config(), System::nanoTime));
    }

    @Test
    void rejectsAnUnknownNameListingTheValidOnes() {
        assertThatThrownBy(() -> PolicyFactory.create("least_load", Fleet.config(), System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown policy 'least_load'; valid policies: cache_aware, round_robin, random, "
                        + "power_of_two, manual, consistent_hashing, prefix_hash, bucket, load_aware_affinity");
        assertThatThrownBy(() -> PolicyFactory.create(null, Fleet.config(), System::nanoTime))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
