package dev.homing.core.policy;

import dev.homing.core.kv.ExactOverlay;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
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

    /** Each test runs on both policies that keep a prefix tree. */
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest
    @ValueSource(strings = {"cache_aware", "load_aware_affinity"})
    @interface BothTreePolicies {
    }

    /** What a decision says beside its worker: its branch, matched characters, view and predicted tokens. */
    private static List<Object> facets(Decision decision) {
        return List.of(decision.branch(), decision.matchedChars(), decision.view(), decision.predictedTokens());
    }

    /** The policy {@code name} once its tree has learnt that w0 holds {@link #PROMPT}, and that request is over. */
    private RoutingPolicy withPromptOnW0(String name) {
        RoutingPolicy policy = policy(name);
        Decision placed = policy.select(Fleet.withUnavailable(workers, 1), RoutingRequest.ofText(PROMPT));
        assertThat(placed.workerIndex()).isZero();
        policy.onFirstToken("w0", placed);
        policy.onCompleted("w0", RoutingRequest.ofText(PROMPT), placed, new EngineReport(250, 0, true));
        return policy;
    }

    @BothTreePolicies
    void aWorkerWhoseEngineEvictedThePrefixDoesNotAttractTheRequest(String name) {
        RoutingPolicy policy = withPromptOnW0(name);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP).withExact(exact(0, 0)));

        assertThat(facets(decision)).containsExactly("miss", 0, RoutingView.EXACT, 0);
    }

    @BothTreePolicies
    void anExactWorkerIsJudgedByTheTokensItsEngineHolds(String name) {
        RoutingPolicy policy = withPromptOnW0(name);

        // w1's engine holds the whole prompt (another gateway placed it there, say); w0's only its first 100 tokens.
        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP).withExact(exact(100, 250)));

        assertThat(decision.workerIndex()).isEqualTo(1);
        assertThat(facets(decision))
                .containsExactly("hit", 250 * FOLLOW_UP.length() / FOLLOW_UP_TOKENS, RoutingView.EXACT, 250);
    }

    @BothTreePolicies
    void aWorkerWithoutAnExactViewIsJudgedByTheTree(String name) {
        RoutingPolicy policy = withPromptOnW0(name);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP)
                .withExact(new ExactOverlay(FOLLOW_UP_TOKENS, Map.of("w1", 0))));

        assertThat(decision.workerIndex()).isZero();
        assertThat(facets(decision)).containsExactly("hit", PROMPT.length(), RoutingView.APPROXIMATE, 0);
    }

    @BothTreePolicies
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

    @BothTreePolicies
    void withoutAnExactViewTheDecisionIsApproximate(String name) {
        RoutingPolicy policy = withPromptOnW0(name);

        Decision decision = policy.select(workers, RoutingRequest.ofText(FOLLOW_UP));

        assertThat(decision.view()).isEqualTo(RoutingView.APPROXIMATE);
        assertThat(decision.workerIndex()).isZero();
    }
}
