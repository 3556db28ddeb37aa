package dev.homing.core.policy.reference;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.Fleet;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class HashRingTest {

    @Test
    void reusesTheRingWhileTheSetOfWorkersIsTheSame() {
        HashRing ring = new HashRing();
        List<WorkerView> workers = Fleet.idle(3);
        List<WorkerView> reordered = new ArrayList<>(workers);
        Collections.reverse(reordered);
        HashRing.Layout first = ring.layoutFor(workers);
        assertThat(ring.layoutFor(Fleet.withUnavailable(workers, 1))).isSameAs(first);
        assertThat(ring.layoutFor(reordered)).isSameAs(first);
        assertThat(ring.layoutFor(Fleet.idle(4))).isNotSameAs(first);
    }

    @Test
    void findsNoWorkerWhenNoneAccepts() {
        assertThat(new HashRing().walk(Fleet.idle(3), 42, worker -> false)).isEqualTo(Decision.NONE);
        assertThat(new HashRing().walk(List.of(), 42, worker -> true)).isEqualTo(Decision.NONE);
    }

    @Test
    void agreesWithANaiveRingOnRandomFleetsKeysAndAcceptance() {
        for (long seed = 1; seed <= 30; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            HashRing ring = new HashRing();
            for (int round = 0; round < 50; round++) {
                List<WorkerView> workers = new ArrayList<>();
                int size = 1 + random.nextInt(6);
                for (int i = 0; i < size; i++) {
                    workers.add(new WorkerView("http://10.0.0." + (random.nextInt(12) * 10 + i), random.nextBoolean(),
                            random.nextInt(5), WorkerView.UNKNOWN_LOAD));
                }
                Collections.shuffle(workers, new Random(seed * 1000 + round));
                long position = random.nextLong();
                Predicate<WorkerView> accepts = worker -> worker.available() && worker.inFlight() < 3;
                assertThat(ring.walk(workers, position, accepts))
                        .as("seed %d round %d", seed, round)
                        .isEqualTo(naiveWalk(workers, position, accepts));
            }
        }
    }

    /** The accepted worker owning the first point at or after {@code position}, wrapping to the lowest point. */
    private static int naiveWalk(List<WorkerView> workers, long position, Predicate<WorkerView> accepts) {
        int atOrAfter = Decision.NONE;
        long atOrAfterPoint = Long.MAX_VALUE;
        int lowest = Decision.NONE;
        long lowestPoint = Long.MAX_VALUE;
        for (int w = 0; w < workers.size(); w++) {
            if (!accepts.test(workers.get(w))) {
                continue;
            }
            for (int v = 0; v < HashRing.VIRTUAL_NODES; v++) {
                long point = HashRing.hash(workers.get(w).id() + "#" + v);
                if (point >= position && (atOrAfter == Decision.NONE || point < atOrAfterPoint)) {
                    atOrAfter = w;
                    atOrAfterPoint = point;
                }
                if (lowest == Decision.NONE || point < lowestPoint) {
                    lowest = w;
                    lowestPoint = point;
                }
            }
        }
        return atOrAfter != Decision.NONE ? atOrAfter : lowest;
    }
}
