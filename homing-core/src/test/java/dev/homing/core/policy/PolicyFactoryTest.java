package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.homing.core.tree.TreeStats;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicyFactoryTest {

    @Test
    void buildsEveryPolicyUnderItsOwnName() {
        for (String name : PolicyFactory.NAMES) {
            assertThat(PolicyFactory.create(name, Fleet.config(), new Fleet.ManualClock()).name()).isEqualTo(name);
        }
    }

    @Test
    void exactlyThePoliciesThatRouteByAPrefixTreeExportItsStats() {
        for (String name : PolicyFactory.NAMES) {
            RoutingPolicy policy = PolicyFactory.create(name, Fleet.config(), new Fleet.ManualClock());
            policy.select(Fleet.idle(2), RoutingRequest.ofText("hello"));
            boolean keepsATree = name.equals("cache_aware") || name.equals("load_aware_affinity");
            assertThat(policy.treeStats().map(TreeStats::storedChars)).as(name)
                    .isEqualTo(keepsATree ? Optional.of(5L) : Optional.empty());
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
