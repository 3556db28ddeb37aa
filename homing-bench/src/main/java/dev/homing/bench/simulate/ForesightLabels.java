package dev.homing.bench.simulate;

import dev.homing.bench.workload.Conversation;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.Workload;
import dev.homing.core.policy.RoutingRequest.Reuse;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What the future holds for each request of a trace with block ids: whether the blocks it brings that no earlier
 * request brought (its new text) are ever read by a later request. A gateway cannot know this; the simulator, which
 * reads the whole trace first, can, and routes with it to give the foresight ceiling of one-off placement. Requests
 * are taken in the workload's order (a trace's arrival order); a turn without block ids is {@link Reuse#UNKNOWN}.
 */
final class ForesightLabels {

    private final Map<String, Reuse> byTurn;

    private ForesightLabels(Map<String, Reuse> byTurn) {
        this.byTurn = byTurn;
    }

    /** The labels of {@code workload}'s turns; empty when none carries block ids. Reads the workload twice. */
    static ForesightLabels of(Workload workload) {
        Map<Long, Integer> lastSeen = new HashMap<>();
        int[] index = {0};
        try (Stream<Conversation> conversations = workload.conversations()) {
            conversations.forEach(c -> c.turns().forEach(turn -> {
                int at = index[0]++;
                turn.blockIds().forEach(block -> lastSeen.put(block, at));
            }));
        }
        Map<String, Reuse> byTurn = new HashMap<>();
        Set<Long> seen = new HashSet<>();
        index[0] = 0;
        try (Stream<Conversation> conversations = workload.conversations()) {
            conversations.forEach(c -> {
                List<Turn> turns = c.turns();
                for (int t = 0; t < turns.size(); t++) {
                    int at = index[0]++;
                    List<Long> blocks = turns.get(t).blockIds();
                    if (!blocks.isEmpty()) {
                        byTurn.put(key(c.id(), t), label(blocks, at, seen, lastSeen));
                    }
                }
            });
        }
        return new ForesightLabels(byTurn);
    }

    /** One-off when none of the blocks first brought by request {@code at} occurs after it. */
    private static Reuse label(List<Long> blocks, int at, Set<Long> seen, Map<Long, Integer> lastSeen) {
        boolean reused = false;
        for (Long block : blocks) {
            if (seen.add(block) && lastSeen.get(block) > at) {
                reused = true;
            }
        }
        return reused ? Reuse.REUSED : Reuse.ONE_OFF;
    }

    boolean isEmpty() {
        return byTurn.isEmpty();
    }

    /** Turn {@code turn} of conversation {@code conversationId}'s future, {@link Reuse#UNKNOWN} when not labelled. */
    Reuse of(String conversationId, int turn) {
        return byTurn.getOrDefault(key(conversationId, turn), Reuse.UNKNOWN);
    }

    private static String key(String conversationId, int turn) {
        return conversationId + '#' + turn;
    }
}
