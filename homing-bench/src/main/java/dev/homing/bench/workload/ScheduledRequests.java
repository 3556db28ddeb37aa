package dev.homing.bench.workload;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.stream.Stream;

/**
 * Flattens a workload's conversations into one stream of requests in order of arrival, for consumers that need
 * fixed request times (bounds, open-loop replays). It assumes answers arrive at once: turn {@code k + 1} arrives
 * turn {@code k}'s arrival plus its think time, and each answer is {@link #syntheticAnswer synthetic text} of the
 * requested length. A simulator that models service time should instead schedule a conversation's next turn when
 * its answer finishes, with {@link ChatHistory#messages}.
 *
 * <p>Memory holds only conversations that have started and not finished. Not thread-safe.
 */
public final class ScheduledRequests {

    private ScheduledRequests() {
    }

    public static Stream<WorkloadRequest> of(Workload workload) {
        Stream<Conversation> conversations = workload.conversations();
        return LazyStream.of(new Merge(conversations.iterator())).onClose(conversations::close);
    }

    /** The answer the offline schedule assumes: {@code tokens} pseudo-tokens seeded by conversation and turn. */
    public static String syntheticAnswer(String conversationId, int turn, int tokens) {
        return PseudoText.of(SplitMix64.derive(SplitMix64.hash(conversationId), turn), tokens);
    }

    private record Pending(long arrivalMicros, long order, Conversation conversation, int turn, List<String> answers) {
    }

    private static final class Merge implements Iterator<WorkloadRequest> {

        private final Iterator<Conversation> source;
        private final PriorityQueue<Pending> pending = new PriorityQueue<>(
                Comparator.comparingLong(Pending::arrivalMicros).thenComparingLong(Pending::order));
        private Conversation lookahead;
        private long order;

        Merge(Iterator<Conversation> source) {
            this.source = source;
            this.lookahead = source.hasNext() ? source.next() : null;
        }

        @Override
        public boolean hasNext() {
            return lookahead != null || !pending.isEmpty();
        }

        @Override
        public WorkloadRequest next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            // Admit every conversation that starts no later than the earliest pending turn; sources are ordered.
            while (lookahead != null
                    && (pending.isEmpty() || lookahead.startMicros() <= pending.peek().arrivalMicros())) {
                pending.add(new Pending(lookahead.startMicros(), order++, lookahead, 0, List.of()));
                lookahead = source.hasNext() ? source.next() : null;
            }
            Pending p = pending.poll();
            Conversation c = p.conversation();
            Turn turn = c.turns().get(p.turn());
            WorkloadRequest request = new WorkloadRequest(p.arrivalMicros(), c.id(), p.turn(),
                    ChatHistory.messages(c, p.turn(), p.answers()), turn.maxOutputTokens(), turn.blockIds());
            int nextTurn = p.turn() + 1;
            if (nextTurn < c.turns().size()) {
                List<String> answers = new ArrayList<>(p.answers());
                answers.add(syntheticAnswer(c.id(), p.turn(), turn.maxOutputTokens()));
                long arrival = p.arrivalMicros() + c.turns().get(nextTurn).thinkMicros();
                pending.add(new Pending(arrival, order++, c, nextTurn, List.copyOf(answers)));
            }
            return request;
        }
    }
}
