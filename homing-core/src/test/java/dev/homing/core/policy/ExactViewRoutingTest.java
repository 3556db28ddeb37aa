package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How both tree policies judge a worker whose view is exact: by what its engine holds, not by the tree. */
class ExactViewRoutingTest {

    /** 1,000 characters standing for 250 tokens. */
    private static final String PROMPT = "x".repeat(400) + "y".repeat(600);
    private static final String FOLLOW_UP = PROMPT + "z".repeat(100);
    private static final int FOLLOW_UP_TOKENS = FOLLOW_UP.length() / 4;

    private final Fleet.ManualClock clock = new Fleet.ManualClock();
    private final List<WorkerView> workers = Fleet.idle(2);

    private RoutingPolicy policy(String name) {
        return PolicyFactory.create(name, Fleet.config(), clock);
    }

    private static ExactOverlay exact(int w0Tokens, int w1Tokens) {
        return new ExactOverlay(FOLLOW_UP_TOKENS, Map.of("w0", w0Tokens, "w1", w1Tokens));
    }

    /** The tree learns that w0 holds {@link #PROMPT}, and its request is over. */
    private void promptPlacedOnW0(RoutingPolicy policy) {
        Decision placed = policy.select(Fleet.withUnavailable(workers, 1), RoutingRequest.ofText(PROMPT));
        assertThat(placed.workerIndex()).isZero();
        policy.onFirstToken("w0", placed);
        policy.onCompleted("w0", RoutingRequest.ofText(PROMPT), placed, new EngineReport(250, 0, true));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void aWorkerWhoseEngineEvictedThePrefixDoesNotAttractTheRequest(String name) {
        RoutingPolicy policy = policy(name);
        promptPlacedOnW0(policy);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP).withExact(exact(0, 0)));

        assertThat(decision.branch()).isEqualTo("miss");
        assertThat(decision.matchedChars()).isZero();
        assertThat(decision.view()).isEqualTo(RoutingView.EXACT);
        assertThat(decision.predictedTokens()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void anExactWorkerIsJudgedByTheTokensItsEngineHolds(String name) {
        RoutingPolicy policy = policy(name);
        promptPlacedOnW0(policy);

        // w1's engine holds the whole prompt (another gateway placed it there, say); w0's only its first 100 tokens.
        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP).withExact(exact(100, 250)));

        assertThat(decision.workerIndex()).isEqualTo(1);
        assertThat(decision.branch()).isEqualTo("hit");
        assertThat(decision.matchedChars()).isEqualTo(250 * FOLLOW_UP.length() / FOLLOW_UP_TOKENS);
        assertThat(decision.view()).isEqualTo(RoutingView.EXACT);
        assertThat(decision.predictedTokens()).isEqualTo(250);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void aWorkerWithoutAnExactViewIsJudgedByTheTree(String name) {
        RoutingPolicy policy = policy(name);
        promptPlacedOnW0(policy);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP)
                .withExact(new ExactOverlay(FOLLOW_UP_TOKENS, Map.of("w1", 0))));

        assertThat(decision.workerIndex()).isZero();
        assertThat(decision.branch()).isEqualTo("hit");
        assertThat(decision.matchedChars()).isEqualTo(PROMPT.length());
        assertThat(decision.view()).isEqualTo(RoutingView.APPROXIMATE);
        assertThat(decision.predictedTokens()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void aPrefixStillInPrefillOnAnExactWorkerCountsUntilItsEventsCanHaveCome(String name) {
        RoutingPolicy policy = policy(name);
        Decision first = policy.select(workers, RoutingRequest.ofText(PROMPT).withExact(exact(0, 0)));
        int worker = first.workerIndex();
        String id = "w" + worker;

        // The engine has not stored the prompt's blocks yet: the overlay says nothing, the placement does.
        Decision whilePrefilling = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP).withExact(exact(0, 0)));
        assertThat(whilePrefilling.workerIndex()).isEqualTo(worker);
        assertThat(whilePrefilling.branch()).isEqualTo("hit");
        assertThat(whilePrefilling.view()).isEqualTo(RoutingView.EXACT);
        assertThat(whilePrefilling.predictedTokens()).isEqualTo(PROMPT.length() * FOLLOW_UP_TOKENS / FOLLOW_UP.length());

        // Prefilled, and long enough ago for its events to have come: an overlay still without it means it is gone.
        policy.onFirstToken(id, first);
        policy.onFirstToken(id, whilePrefilling);
        clock.advanceNanos(InFlightTexts.SETTLE_NANOS + 1);
        Decision after = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP + "w").withExact(exact(0, 0)));
        assertThat(after.branch()).isEqualTo("miss");
        assertThat(after.predictedTokens()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    void withoutAnExactViewTheDecisionIsApproximate(String name) {
        RoutingPolicy policy = policy(name);
        promptPlacedOnW0(policy);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP));

        assertThat(decision.view()).isEqualTo(RoutingView.APPROXIMATE);
        assertThat(decision.workerIndex()).isZero();
    }
}
