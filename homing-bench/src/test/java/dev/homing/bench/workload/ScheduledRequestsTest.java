package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class ScheduledRequestsTest {

    private static Workload of(Conversation... conversations) {
        return new Workload() {
            @Override
            public String name() {
                return "hand-made";
            }

            @Override
            public Stream<Conversation> conversations() {
                return Stream.of(conversations);
            }
        };
    }

    @Test
    void turnsOfOverlappingConversationsComeOutInArrivalOrder() {
        Workload workload = of(
                new Conversation("a", 0, "", List.of(new Turn("a0", 0, 2), new Turn("a1", 5_000, 2))),
                new Conversation("b", 1_000, "", List.of(new Turn("b0", 0, 2), new Turn("b1", 1_000, 2))),
                new Conversation("c", 9_000, "", List.of(new Turn("c0", 0, 2))));

        List<WorkloadRequest> requests = ScheduledRequests.of(workload).toList();

        assertThat(requests).extracting(r -> r.conversationId() + r.turn())
                .containsExactly("a0", "b0", "b1", "a1", "c0");
        assertThat(requests).extracting(WorkloadRequest::arrivalMicros)
                .containsExactly(0L, 1_000L, 2_000L, 5_000L, 9_000L);
    }

    @Test
    void aLaterTurnCarriesTheSyntheticAnswerToTheEarlierOne() {
        Workload workload = of(new Conversation("a", 0, "S", List.of(new Turn("q0", 0, 3), new Turn("q1", 10, 3))));

        WorkloadRequest second = ScheduledRequests.of(workload).toList().get(1);

        assertThat(second.messages()).containsExactly(ChatMessage.system("S"), ChatMessage.user("q0"),
                ChatMessage.assistant(ScheduledRequests.syntheticAnswer("a", 0, 3)), ChatMessage.user("q1"));
        assertThat(ScheduledRequests.syntheticAnswer("a", 0, 3)).hasSize(12);
    }

    @Test
    void blockIdsAndOutputLengthsPassThrough() {
        Workload workload = of(new Conversation("m", 0, "", List.of(new Turn("x", 0, 7, List.of(4L, 2L)))));

        WorkloadRequest request = ScheduledRequests.of(workload).findFirst().orElseThrow();

        assertThat(request.blockIds()).containsExactly(4L, 2L);
        assertThat(request.maxOutputTokens()).isEqualTo(7);
        assertThat(request.prompt()).isEqualTo("<|user|>\nx\n");
    }

    @Test
    void flatteningAHugeGeneratedWorkloadPullsOnlyTheConversationsItNeeds() {
        Workload chat = new MultiTurnChat(MultiTurnChat.Shape.typical(1.0, Limits.conversations(10_000_000), 1));

        List<WorkloadRequest> first = ScheduledRequests.of(chat).limit(20).toList();

        assertThat(first).hasSize(20);
        assertThat(first).extracting(WorkloadRequest::arrivalMicros).isSorted();
    }
}
