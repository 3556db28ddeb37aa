package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A request carrying an exact view that marks no worker exact is decided on per-worker matches
 * ({@link WorkerMatches}); one carrying none walks the tree's levels as before. Both must decide alike, request for
 * request, over a workload that exercises every rule: shared system prompts, conversations that grow, loads that
 * change, a worker going down and coming back, first tokens and completions in between.
 */
class ExactViewIdentityTest {

    private static final int REQUESTS = 4_000;
    private static final int WORKERS = 8;

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void anExactViewWithNoExactWorkerDecidesAsTheTreeAlone(String policyName) {
        Fleet.ManualClock clock = new Fleet.ManualClock();
        // A low balance gate lets cache_aware's imbalance branch and the affinity's overload valve fire too, and a
        // small tree makes maintenance evict.
        PolicyConfig d = PolicyConfig.DEFAULTS;
        PolicyConfig config = new PolicyConfig(d.cacheThreshold(), 6, 1.5, 300_000, d.maxIdleSecs(),
                d.assignmentMode(), d.prefixTokenCount(), d.prefixHashLoadFactor(), d.bucketAdjustIntervalSecs(), 42);
        RoutingPolicy plain = PolicyFactory.create(policyName, config, clock);
        RoutingPolicy overlaid = PolicyFactory.create(policyName, config, clock);
        Workload workload = new Workload(new SplittableRandom(7));
        int[] inFlight = new int[WORKERS];
        List<Placed> open = new ArrayList<>();
        SplittableRandom events = new SplittableRandom(11);
        Map<String, Integer> branches = new java.util.TreeMap<>();

        for (int r = 0; r < REQUESTS; r++) {
            List<WorkerView> workers = new ArrayList<>();
            for (int w = 0; w < WORKERS; w++) {
                boolean down = w == 3 && r % 700 > 600;
                workers.add(new WorkerView("w" + w, !down, inFlight[w], WorkerView.UNKNOWN_LOAD));
            }
            RoutingRequest request = RoutingRequest.ofText(workload.next());
            Decision expected = plain.select(workers, request);
            Decision actual = overlaid.select(workers,
                    request.withExact(new ExactOverlay(request.text().length() / 4, Map.of())));

            assertThat(actual).as("request %d", r).usingRecursiveComparison()
                    .ignoringFields("prefill", "hold.awaited").isEqualTo(expected);
            assertThat(actual.view()).isEqualTo(RoutingView.APPROXIMATE);
            branches.merge(expected.branch() + (expected.hold() != null ? "+held" : ""), 1, Integer::sum);
            inFlight[expected.workerIndex()]++;
            open.add(new Placed(expected, actual, request));
            // Between 20 and 60 requests stay open; which ends next is drawn.
            while (open.size() > 20 + events.nextInt(40)) {
                Placed done = open.remove(events.nextInt(open.size()));
                String id = "w" + done.expected.workerIndex();
                plain.onFirstToken(id, done.expected);
                overlaid.onFirstToken(id, done.actual);
                int prompt = done.request.text().length() / 4;
                int cached = events.nextInt(prompt + 1);
                plain.onCompleted(id, done.request, done.expected, new EngineReport(prompt, cached, true));
                overlaid.onCompleted(id, done.request, done.actual, new EngineReport(prompt, cached, true));
                inFlight[done.expected.workerIndex()]--;
            }
            if (r % 100 == 99) {
                plain.maintain();
                overlaid.maintain();
            }
            clock.advanceNanos(1_000_000);
        }
        // Every branch was taken, and rule 4's holds too.
        assertThat(branches.keySet()).containsAll(policyName.equals("cache_aware")
                ? List.of("hit", "miss", "imbalance") : List.of("hit", "hit+held", "balance", "miss"));
    }

    private record Placed(Decision expected, Decision actual, RoutingRequest request) {
    }

    /** System prompts shared by groups, conversations that grow turn by turn, and one-off prompts. */
    private static final class Workload {
        private final SplittableRandom random;
        private final List<String> conversations = new ArrayList<>();
        private final String[] systems = new String[6];

        Workload(SplittableRandom random) {
            this.random = random;
            for (int i = 0; i < systems.length; i++) {
                systems[i] = words(200 + 100 * i);
            }
        }

        String next() {
            int kind = random.nextInt(10);
            if (kind < 5 && !conversations.isEmpty()) {
                int c = random.nextInt(conversations.size());
                String grown = conversations.get(c) + words(20 + random.nextInt(200));
                conversations.set(c, grown);
                return grown;
            }
            if (kind < 8) {
                String opened = systems[random.nextInt(systems.length)] + words(10 + random.nextInt(100));
                conversations.add(opened);
                return opened;
            }
            return words(5 + random.nextInt(400));
        }

        private String words(int count) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < count; i++) {
                text.append((char) ('a' + random.nextInt(26))).append((char) ('a' + random.nextInt(26))).append(' ');
            }
            return text.toString();
        }
    }
}
