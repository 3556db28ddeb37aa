package dev.homing.gateway.workers;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectGateTest {

    @Test
    void runsUpToTheLimitAtOnceAndTheRestInArrivalOrderAsTurnsAreReleased() {
        ConnectGate gate = new ConnectGate(2);
        List<Integer> ran = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            gate.enter(() -> ran.add(n));
        }
        assertThat(ran).containsExactly(0, 1);
        assertThat(gate.waiting()).isEqualTo(3);

        gate.release();
        assertThat(ran).containsExactly(0, 1, 2);
        gate.release();
        gate.release();
        assertThat(ran).containsExactly(0, 1, 2, 3, 4);
        assertThat(gate.waiting()).isZero();
    }

    @Test
    void aReleasedTurnIsFreeForTheNextComerWhenNobodyWaits() {
        ConnectGate gate = new ConnectGate(1);
        AtomicInteger ran = new AtomicInteger();
        gate.enter(ran::incrementAndGet);
        gate.release();
        gate.enter(ran::incrementAndGet);
        assertThat(ran).hasValue(2);
    }

    @Test
    void underContentionNeverMoreThanTheLimitRunAndNoneIsLeftBehind() throws Exception {
        int limit = 3;
        int perThread = 2_000;
        ConnectGate gate = new ConnectGate(limit);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicInteger finished = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            for (int t = 0; t < 4; t++) {
                pool.execute(() -> {
                    for (int i = 0; i < perThread; i++) {
                        gate.enter(() -> {
                            most.accumulateAndGet(running.incrementAndGet(), Math::max);
                            running.decrementAndGet();
                            finished.incrementAndGet();
                            gate.release();
                        });
                    }
                });
            }
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(finished).hasValue(4 * perThread);
        assertThat(most.get()).isLessThanOrEqualTo(limit);
        assertThat(gate.waiting()).isZero();
    }

    @Test
    void refusesALimitBelowOne() {
        assertThatThrownBy(() -> new ConnectGate(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
