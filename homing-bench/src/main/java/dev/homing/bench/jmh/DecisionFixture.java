package dev.homing.bench.jmh;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The routing-decision benchmarks' world: {@link #CONVERSATIONS} chat-shaped prompts and a fleet of workers whose
 * loads stay within cache_aware's balance thresholds (so it takes its matching branch). Shared by
 * {@link RoutingDecisionBenchmark} and {@link InterleavedDecisionRatio}, so both measure the same decisions.
 */
final class DecisionFixture {

    /** Prompts in the tree; more than the largest worker count, so every worker holds several. */
    static final int CONVERSATIONS = 1024;

    final String[] prompts;
    final List<WorkerView> workers;

    DecisionFixture(int promptChars, int workerCount) {
        prompts = PromptCorpus.prompts(CONVERSATIONS, promptChars, 42);
        SplittableRandom random = new SplittableRandom(7);
        workers = new ArrayList<>(workerCount);
        for (int w = 0; w < workerCount; w++) {
            workers.add(WorkerView.available("http://10.0.0." + w + ":30000", random.nextInt(4)));
        }
    }

    /**
     * Routes every prompt once through {@code policy} and reports its first token, so the measured decisions find
     * their prompts held and computed, as in a gateway whose earlier requests have been answered.
     */
    <P extends RoutingPolicy> P warmed(P policy) {
        for (String prompt : prompts) {
            Decision decision = policy.select(workers, RoutingRequest.ofText(prompt));
            policy.onFirstToken(workers.get(decision.workerIndex()).id(), decision);
        }
        return policy;
    }
}
