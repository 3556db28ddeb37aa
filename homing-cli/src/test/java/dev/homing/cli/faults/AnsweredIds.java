package dev.homing.cli.faults;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which request ids the engines answered in full, and how often, from their {@code --record-request-ids} files.
 * An id answered twice, by one engine or by two, is a duplicated request: the gateway sent it again after it had
 * been answered.
 */
final class AnsweredIds {

    private final Map<String, Integer> timesAnswered = new TreeMap<>();

    private AnsweredIds() {
    }

    static AnsweredIds of(List<EngineProcess> engines) {
        AnsweredIds ids = new AnsweredIds();
        for (EngineProcess engine : engines) {
            for (String id : engine.answeredIds()) {
                ids.timesAnswered.merge(id, 1, Integer::sum);
            }
        }
        return ids;
    }

    /** Ids answered more than once. */
    List<String> duplicated() {
        return timesAnswered.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
    }

    /** Answers recorded in all, duplicates included. */
    int count() {
        return timesAnswered.values().stream().mapToInt(Integer::intValue).sum();
    }

    int timesAnswered(String requestId) {
        return timesAnswered.getOrDefault(requestId, 0);
    }
}
