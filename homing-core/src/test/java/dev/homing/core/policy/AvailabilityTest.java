package dev.homing.core.policy;

import dev.homing.core.policy.reference.ConsistentHashingPolicy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every policy, fed random fleets and requests: never an unavailable worker, and a worker whenever one exists. */
class AvailabilityTest {

    static List<String> policies() {
        return PolicyFactory.NAMES;
    }

    @ParameterizedTest
    @MethodSource("policies")
    void neverChoosesAnUnavailableWorker(String name) {
        for (long seed = 1; seed <= 20; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            Fleet.ManualClock clock = new Fleet.ManualClock();
            RoutingPolicy policy = PolicyFactory.create(name, Fleet.config().withSeed(seed), clock);
            for (int round = 0; round < 300; round++) {
                List<WorkerView> workers = randomFleet(random);
                RoutingRequest request = randomRequest(random, workers.size());
                Decision decision = policy.select(workers, request);
                long failingSeed = seed;
                int failingRound = round;
                Supplier<String> context = () -> "policy %s, seed %d, round %d: %s"
                        .formatted(name, failingSeed, failingRound, describe(workers, request, decision));
                if (decision.found()) {
                    assertThat(workers.get(decision.workerIndex()).available()).as(context).isTrue();
                } else if (!decision.branch().equals("target_worker_miss")) {
                    assertThat(workers).as(context).noneMatch(WorkerView::available);
                }
                clock.advanceSeconds(random.nextInt(3));
                if (random.nextInt(10) == 0) {
                    policy.maintain();
                }
            }
        }
    }

    private static String describe(List<WorkerView> workers, RoutingRequest request, Decision decision) {
        return "workers %s, text of %d chars, key %s, target %s, implicit %s, decision %s".formatted(workers,
                request.text().length(), request.routingKey(), request.targetWorker(), request.implicitKey(), decision);
    }

    /** Up to six workers from a pool of eight ids, each available with probability 0.7, with random loads. */
    private static List<WorkerView> randomFleet(SplittableRandom random) {
        int size = random.nextInt(7);
        List<WorkerView> workers = new ArrayList<>(size);
        int firstId = random.nextInt(3);
        for (int i = 0; i < size; i++) {
            long reported = random.nextInt(4) == 0 ? WorkerView.UNKNOWN_LOAD : random.nextInt(1_000);
            workers.add(new WorkerView("w" + (firstId + i), random.nextInt(10) < 7, random.nextInt(20), reported));
        }
        return workers;
    }

    private static RoutingRequest randomRequest(SplittableRandom random, int fleetSize) {
        String text = "p" + random.nextInt(5) + "x".repeat(random.nextInt(3_000));
        String routingKey = random.nextBoolean() ? "user-" + random.nextInt(20) : null;
        String target = random.nextInt(5) == 0 ? String.valueOf(random.nextInt(fleetSize + 2) - 1) : null;
        String implicit = random.nextBoolean() ? "Bearer " + random.nextInt(20) : null;
        return new RoutingRequest(random.nextInt(8) == 0 ? "" : text, routingKey, target, implicit);
    }
}
