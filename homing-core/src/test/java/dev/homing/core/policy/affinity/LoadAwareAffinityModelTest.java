package dev.homing.core.policy.affinity;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.tree.PrefixMatch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The policy's decisions against a naive model that reads every worker: the rules of docs/POLICY.md written as a
 * plain scan. Seeded random traffic (shared system prompts, continuations, fresh texts), workers going unavailable,
 * the list reordered and a worker removed and added back, so the fast path's heap and cached positions are checked
 * against what they stand for. Equal costs may be broken differently, so the model checks the choice is optimal.
 */
class LoadAwareAffinityModelTest {

    private static final int WORKERS = 12;
    private static final int STEPS = 3000;

    @Test
    void withoutAQueueTermEveryDecisionIsTheNaiveOptimum() {
        replay(0.0);
    }

    @Test
    void withAQueueTermEveryDecisionIsTheNaiveOptimum() {
        replay(0.5);
    }

    private static void replay(double pendingWeight) {
        AffinitySettings settings = new AffinitySettings(0.1, 1.25, 0.5, 64, pendingWeight, 256, 1.0, 0, 0);
        LoadAwareAffinityPolicy policy = new LoadAwareAffinityPolicy(
                PolicyConfig.DEFAULTS.withSeed(3).withAffinity(settings), System::nanoTime);
        SplittableRandom random = new SplittableRandom(17);
        List<String> ids = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            ids.add("http://10.0.0." + w);
        }
        Map<String, Double> work = new HashMap<>();
        Map<String, Long> pending = new HashMap<>();
        String[] systems = {words(random, 400), words(random, 400), words(random, 1200)};
        List<String> sent = new ArrayList<>();
        for (int step = 0; step < STEPS; step++) {
            if (step % 250 == 249) {
                Collections.shuffle(ids, new Random(step));
            }
            if (step == STEPS / 2) {
                policy.onWorkerRemoved(ids.get(0));
                work.remove(ids.get(0));
                pending.remove(ids.get(0));
            }
            List<WorkerView> workers = new ArrayList<>();
            for (String id : ids) {
                workers.add(new WorkerView(id, random.nextInt(10) != 0, 0, WorkerView.UNKNOWN_LOAD));
            }
            if (workers.stream().noneMatch(WorkerView::available)) {
                workers.set(0, WorkerView.available(ids.get(0), 0));
            }
            String text = nextText(random, systems, sent);
            PrefixMatch before = policy.tree().match(text);

            Decision decision = policy.select(workers, RoutingRequest.ofText(text));

            work.replaceAll((id, w) -> w * settings.keepPerDecision());
            Expected expected = naive(settings, workers, before, text.length(), work, pending);
            String chosen = workers.get(decision.workerIndex()).id();
            assertThat(expected.costs).as("step %d: %s is a candidate", step, chosen).containsKey(chosen);
            assertThat(expected.costs.get(chosen)).as("step %d: cost", step).isEqualTo(expected.bestCost);
            assertThat(work.getOrDefault(chosen, 0.0)).as("step %d: recent work", step)
                    .isLessThanOrEqualTo(expected.leastWork * (1 + 1e-9) + 1e-6);
            assertThat(decision.matchedChars()).as("step %d: matched", step).isEqualTo(expected.matched.get(chosen));
            assertThat(decision.branch()).as("step %d: branch", step).isEqualTo(expected.branch(chosen));
            int uncached = text.length() - decision.matchedChars();
            work.merge(chosen, (double) uncached, Double::sum);
            pending.merge(chosen, (long) uncached, Long::sum);
            sent.add(text);
        }
    }

    /** What the rules say, reading every worker. */
    private static Expected naive(AffinitySettings settings, List<WorkerView> workers, PrefixMatch match,
                                  int textChars, Map<String, Double> work, Map<String, Long> pending) {
        List<WorkerView> available = workers.stream().filter(WorkerView::available).toList();
        int floor = available.stream().mapToInt(w -> match.matchedCharsFor(w.id())).min().orElseThrow();
        double sum = available.stream().mapToDouble(w -> work.getOrDefault(w.id(), 0.0)).sum();
        double bound = settings.loadFactor() * (sum + textChars) / available.size();
        int minSaving = (int) (settings.minSaving() * textChars);
        Expected expected = new Expected(floor);
        for (WorkerView w : available) {
            int held = match.matchedCharsFor(w.id());
            int matched = held - floor > minSaving ? held : floor;
            expected.matched.put(w.id(), matched);
            expected.anySaving |= matched > floor;
            double recent = work.getOrDefault(w.id(), 0.0);
            double tolerance = matched > floor ? settings.moveTolerance() * (matched - floor) : 0;
            if (recent > (bound + tolerance) * (1 + 1e-9)) {
                continue;
            }
            long cost = (long) (settings.pendingWeight() * pending.getOrDefault(w.id(), 0L)) + textChars - matched;
            expected.costs.put(w.id(), cost);
        }
        expected.bestCost = expected.costs.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        expected.leastWork = expected.costs.entrySet().stream().filter(e -> e.getValue() == expected.bestCost)
                .mapToDouble(e -> work.getOrDefault(e.getKey(), 0.0)).min().orElseThrow();
        return expected;
    }

    private static final class Expected {
        final int floor;
        final Map<String, Long> costs = new HashMap<>();
        final Map<String, Integer> matched = new HashMap<>();
        boolean anySaving;
        long bestCost;
        double leastWork;

        Expected(int floor) {
            this.floor = floor;
        }

        String branch(String chosen) {
            return matched.get(chosen) > floor ? "hit" : anySaving ? "balance" : "miss";
        }
    }

    /** A continuation of an earlier text, a new text on a shared system prompt, or a text of its own. */
    private static String nextText(SplittableRandom random, String[] systems, List<String> sent) {
        int kind = random.nextInt(3);
        if (kind == 0 && !sent.isEmpty()) {
            return sent.get(random.nextInt(sent.size())) + words(random, 20 + random.nextInt(300));
        }
        if (kind == 1) {
            return systems[random.nextInt(systems.length)] + words(random, 50 + random.nextInt(500));
        }
        return words(random, 100 + random.nextInt(800));
    }

    private static String words(SplittableRandom random, int chars) {
        StringBuilder text = new StringBuilder(chars);
        while (text.length() < chars) {
            text.append((char) ('a' + random.nextInt(26)));
            if (random.nextInt(6) == 0) {
                text.append(' ');
            }
        }
        return text.substring(0, chars);
    }
}
