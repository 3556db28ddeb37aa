package dev.homing.bench.simulate;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.Workload;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.stream.Stream;

/**
 * The turns waiting to be sent, in order of arrival: first turns come from the workload's conversation stream (which
 * is ordered by start time and read only as far as needed); a later turn is queued when the previous answer
 * finishes, at that time plus the turn's think time, as a live client would send it (closed loop within a
 * conversation). Equal times keep the order in which turns were queued. Not thread-safe.
 */
final class ArrivalQueue implements AutoCloseable {

    /** A turn due at {@code atNanos}, with the answers to the conversation's earlier turns. */
    record TurnArrival(long atNanos, long order, Conversation conversation, int turn, List<String> answers) {

        boolean hasNextTurn() {
            return turn + 1 < conversation.turns().size();
        }
    }

    private final Stream<Conversation> source;
    private final Iterator<Conversation> conversations;
    private final PriorityQueue<TurnArrival> pending = new PriorityQueue<>(
            Comparator.comparingLong(TurnArrival::atNanos).thenComparingLong(TurnArrival::order));
    private Conversation lookahead;
    private long order;

    ArrivalQueue(Workload workload) {
        this.source = workload.conversations();
        this.conversations = source.iterator();
        this.lookahead = conversations.hasNext() ? conversations.next() : null;
    }

    /** When the next turn is due, or {@link Long#MAX_VALUE} when none is left. */
    long nextNanos() {
        long fromSource = lookahead == null ? Long.MAX_VALUE : lookahead.startMicros() * 1_000;
        TurnArrival head = pending.peek();
        return Math.min(fromSource, head == null ? Long.MAX_VALUE : head.atNanos());
    }

    /** Takes the next turn due; call only when {@link #nextNanos} is finite. */
    TurnArrival poll() {
        TurnArrival head = pending.peek();
        if (lookahead != null && (head == null || lookahead.startMicros() * 1_000 <= head.atNanos())) {
            TurnArrival first = new TurnArrival(lookahead.startMicros() * 1_000, order++, lookahead, 0, List.of());
            lookahead = conversations.hasNext() ? conversations.next() : null;
            return first;
        }
        return pending.poll();
    }

    /** Queues the turn after {@code answered}, whose answer text {@code answer} finished at {@code finishedNanos}. */
    void answered(TurnArrival answered, String answer, long finishedNanos) {
        int next = answered.turn() + 1;
        List<String> answers = new ArrayList<>(answered.answers());
        answers.add(answer);
        long at = finishedNanos + answered.conversation().turns().get(next).thinkMicros() * 1_000;
        pending.add(new TurnArrival(at, order++, answered.conversation(), next, List.copyOf(answers)));
    }

    /** Whether turns are still waiting to be sent (in-flight answers may still add more). */
    boolean isEmpty() {
        return lookahead == null && pending.isEmpty();
    }

    @Override
    public void close() {
        source.close();
    }
}
