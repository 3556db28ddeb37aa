package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The offline simulator replays a trace through a policy: one thread and one seed must give one answer. */
class ReproducibilityTest {

    static List<String> policies() {
        return AvailabilityTest.policies();
    }

    @ParameterizedTest
    @MethodSource("policies")
    void theSameSeedRepeatsTheSameDecisions(String name) {
        assertThat(decisions(name, 7)).isEqualTo(decisions(name, 7));
    }

    /** What a decision chose; its prefill handles are new objects in every run. */
    private static List<List<Object>> decisions(String name, long seed) {
        Fleet.ManualClock clock = new Fleet.ManualClock();
        RoutingPolicy policy = PolicyFactory.create(name, Fleet.config().withSeed(seed), clock);
        SplittableRandom random = new SplittableRandom(seed);
        List<List<Object>> decisions = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            int[] inFlight = {random.nextInt(4), random.nextInt(4), random.nextInt(4), random.nextInt(4)};
            List<WorkerView> workers = Fleet.withInFlight(inFlight);
            if (random.nextInt(4) == 0) {
                workers = Fleet.withUnavailable(workers, random.nextInt(4));
            }
            String key = random.nextBoolean() ? "user-" + random.nextInt(30) : null;
            String text = random.nextInt(6) == 0 ? "" : "x".repeat(random.nextInt(5_000));
            Decision d = policy.select(workers, new RoutingRequest(text, key, null, null));
            decisions.add(List.of(d.workerIndex(), d.branch(), d.matchedChars(), d.textChars(), d.hold() != null));
            clock.advanceSeconds(random.nextInt(2));
        }
        return decisions;
    }
}
