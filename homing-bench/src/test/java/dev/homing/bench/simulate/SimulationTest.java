package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.homing.bench.workload.ChatMessage;
import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.PseudoText;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.core.policy.PolicyFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulationTest {

    private static final SimulationSettings TWO_WORKERS = SimulationSettings.defaults(2);

    /** {@code count} two-turn conversations of unique text, a minute apart so that none overlaps another. */
    private static Workload separateTwoTurnConversations(int count) {
        List<Conversation> conversations = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            conversations.add(new Conversation("c" + i, i * 60_000_000L, "",
                    List.of(new Turn(PseudoText.of(1000 + i, 400), 0, 10),
                            new Turn(PseudoText.of(5000 + i, 20), 1_000_000, 10))));
        }
        return new FixedWorkload("two-turns", conversations);
    }

    private static Workload smallSharedPrefix() {
        return new GeneratedSharedPrefix(new GeneratedSharedPrefix.Shape(8, 4, 512, 32, 16, 50.0, true, 7));
    }

    @Test
    void aLoneRequestsTimeToFirstTokenIsOnePrefillStep() {
        Workload one = new FixedWorkload("one", List.of(new Conversation("only", 0, "",
                List.of(new Turn(PseudoText.of(1, 1000), 0, 5)))));

        SimulationResult result = Simulation.run(TWO_WORKERS, RequestShape.COMPLETION, one, "round_robin");

        long prefill = TWO_WORKERS.engine().timing().prefillNanos(1000);
        assertThat(result.ttftNanos()).containsExactly(prefill);
        assertThat(result.promptTokens()).isEqualTo(1000);
        assertThat(result.outputTokens()).isEqualTo(5);
    }

    @Test
    void underCacheAwareEverySecondTurnFindsItsFirstTurnCached() {
        SimulationResult result = Simulation.run(TWO_WORKERS, RequestShape.CHAT, separateTwoTurnConversations(40),
                "cache_aware");

        // A second turn extends its first turn's prompt and answer and goes where they are cached: it finds the
        // first prompt and all of the answer but its last token, which was sampled and never computed. A first
        // turn finds at most the few template tokens every conversation starts with.
        int firstPrompt = RequestShape.CHAT.render(List.of(ChatMessage.user(PseudoText.of(1000, 400))))
                .promptTokens().length;
        long perSecondTurn = firstPrompt + 10 - 1;
        assertThat(result.cachedTokens()).isBetween(40 * perSecondTurn, 40 * perSecondTurn + 40 * 8);
        assertThat(result.branches()).containsEntry("hit", 40L);
    }

    @Test
    void underRandomAboutHalfTheSecondTurnsFindTheirFirstTurnCached() {
        Workload workload = separateTwoTurnConversations(100);
        SimulationResult affine = Simulation.run(TWO_WORKERS, RequestShape.CHAT, workload, "cache_aware");
        SimulationResult random = Simulation.run(TWO_WORKERS, RequestShape.CHAT, workload, "random");

        // With two workers, a second turn lands on its first turn's worker with probability 1/2.
        assertThat((double) random.cachedTokens() / affine.cachedTokens()).isCloseTo(0.5, within(0.15));
    }

    @Test
    void theSameSeedGivesTheSameResults() {
        for (String policy : PolicyFactory.NAMES) {
            SimulationResult first = Simulation.run(TWO_WORKERS, RequestShape.CHAT, smallSharedPrefix(), policy);
            SimulationResult second = Simulation.run(TWO_WORKERS, RequestShape.CHAT, smallSharedPrefix(), policy);

            assertThat(second.cachedTokens()).as(policy).isEqualTo(first.cachedTokens());
            assertThat(second.ttftNanos()).as(policy).containsExactly(first.ttftNanos());
            assertThat(second.promptTokensPerWorker()).as(policy).containsExactly(first.promptTokensPerWorker());
            assertThat(second.branches()).as(policy).isEqualTo(first.branches());
        }
    }

    @Test
    void everyRequestIsAnsweredAndCounted() {
        SimulationResult result = Simulation.run(TWO_WORKERS, RequestShape.CHAT, smallSharedPrefix(), "power_of_two");

        assertThat(result.requests()).isEqualTo(32);
        assertThat(result.errors()).isZero();
        assertThat(result.ttftNanos()).hasSize(32);
        assertThat(result.requestsPerWorker()).containsExactly(result.requestsPerWorker()[0],
                32 - result.requestsPerWorker()[0]);
        assertThat(result.outputTokens()).isEqualTo(32 * 16);
    }

    @Test
    void powerOfTwoComparesSampledEngineLoadsWhenSamplingIsOn() {
        SimulationResult result = Simulation.run(TWO_WORKERS, RequestShape.CHAT, smallSharedPrefix(), "power_of_two");

        assertThat(result.branches()).containsOnlyKeys("reported_load");
    }

    @Test
    void powerOfTwoComparesInFlightCountsWhenNoLoadIsSampled() {
        SimulationSettings unsampled = new SimulationSettings(2, TWO_WORKERS.engine(), TWO_WORKERS.policy(),
                TWO_WORKERS.maintainIntervalNanos(), 0, true);

        SimulationResult result = Simulation.run(unsampled, RequestShape.CHAT, smallSharedPrefix(), "power_of_two");

        assertThat(result.branches()).containsOnlyKeys("in_flight");
    }

    @Test
    void aPromptLargerThanTheKvPoolIsAnErrorNotACrash() {
        SimulationSettings tiny = TWO_WORKERS.withEngine(TWO_WORKERS.engine().withKvTokens(500));
        Workload workload = new FixedWorkload("too-long", List.of(
                new Conversation("big", 0, "", List.of(new Turn(PseudoText.of(1, 1000), 0, 5))),
                new Conversation("small", 1_000, "", List.of(new Turn(PseudoText.of(2, 100), 0, 5)))));

        SimulationResult result = Simulation.run(tiny, RequestShape.COMPLETION, workload, "round_robin");

        assertThat(result.requests()).isEqualTo(2);
        assertThat(result.errors()).isEqualTo(1);
        assertThat(result.ttftNanos()).hasSize(1);
    }

    @Test
    void anUnknownPolicyIsRefusedWithTheValidNames() {
        assertThatThrownBy(() -> Simulation.run(TWO_WORKERS, RequestShape.CHAT, smallSharedPrefix(), "fastest"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fastest")
                .hasMessageContaining("cache_aware");
    }
}
