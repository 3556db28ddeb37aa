package dev.homing.gateway.discovery;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What discovery believes of each pod, and the worker changes each piece of news calls for. News comes two ways: an
 * event from the watch ({@link #onEvent}), and the whole pod list read now and then ({@link #reconcile}), which is
 * the API server's truth at the moment it was read.
 *
 * <p>Invariants:
 * <ul>
 *   <li>Each pod that serves has exactly one worker URL believed for it: a change of belief yields a drain of the old
 *       URL before an add of the new one, and nothing when the URL stays.</li>
 *   <li>A list never undoes newer news. A list is read off the discovery thread while events keep coming; each pod
 *       remembers the sequence number of its last event (a deleted pod too, as a tombstone), and {@link #reconcile}
 *       skips every pod with an event after {@link #mark()} was taken for that list.</li>
 *   <li>Every other difference between the list and the belief is a correction: the watch missed that event. It is
 *       applied and counted once; the belief then equals the list for that pod.</li>
 * </ul>
 * Not thread-safe: one discovery thread owns it.
 */
final class PodLedger {

    /** A change to the workers: add the worker at {@code url}, or drain it for {@code reason}. */
    record Change(Kind kind, String url, PodSnapshot pod, String reason) {
        enum Kind { ADD, DRAIN }
    }

    /** What a list corrected: which event the watch had missed, for one pod. */
    enum Missed {
        /** A pod the watch never showed. */
        ADD,
        /** A pod the watch still showed, gone from the list. */
        DELETE,
        /** A pod the watch showed in another state (readiness, IP, deletion timestamp). */
        CHANGE;

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A correction: the pod, what was missed, and the state the list showed (null when gone). */
    record Correction(String key, Missed missed, PodSnapshot before, PodSnapshot now) {
    }

    /** What a list changed. */
    record Reconciliation(List<Change> changes, List<Correction> corrections) {
    }

    private final Map<String, PodSnapshot> believed = new HashMap<>();
    /** Sequence number of each pod's last event, deleted pods included, until a later list makes it moot. */
    private final Map<String, Long> lastEvent = new HashMap<>();
    private long sequence;

    /** News from the watch: the pod as it is now, or null when it was deleted. */
    List<Change> onEvent(String key, PodSnapshot now) {
        lastEvent.put(key, ++sequence);
        return believe(key, now);
    }

    /** Taken just before reading a list, and handed to {@link #reconcile} with it. */
    long mark() {
        return sequence;
    }

    /**
     * The list read after {@code mark}: every pod it holds by key. Pods with an event since the mark keep what the
     * event said.
     */
    Reconciliation reconcile(Map<String, PodSnapshot> listed, long mark) {
        List<Change> changes = new ArrayList<>();
        List<Correction> corrections = new ArrayList<>();
        Set<String> keys = new HashSet<>(believed.keySet());
        keys.addAll(listed.keySet());
        for (String key : keys) {
            Long last = lastEvent.get(key);
            if (last != null && last > mark) {
                continue;
            }
            PodSnapshot before = believed.get(key);
            PodSnapshot now = listed.get(key);
            if (Objects.equals(before, now)) {
                continue;
            }
            Missed missed = before == null ? Missed.ADD : now == null ? Missed.DELETE : Missed.CHANGE;
            corrections.add(new Correction(key, missed, before, now));
            changes.addAll(believe(key, now));
        }
        lastEvent.values().removeIf(last -> last <= mark);
        return new Reconciliation(changes, corrections);
    }

    /** Pods believed now, by status. */
    Map<PodSnapshot.Status, Integer> countByStatus() {
        Map<PodSnapshot.Status, Integer> counts = new EnumMap<>(PodSnapshot.Status.class);
        for (PodSnapshot.Status status : PodSnapshot.Status.values()) {
            counts.put(status, 0);
        }
        for (PodSnapshot pod : believed.values()) {
            counts.merge(pod.status(), 1, Integer::sum);
        }
        return counts;
    }

    /** The pods believed to serve now. */
    List<PodSnapshot> serving() {
        return believed.values().stream().filter(PodSnapshot::serving).toList();
    }

    private List<Change> believe(String key, PodSnapshot now) {
        PodSnapshot before = now == null ? believed.remove(key) : believed.put(key, now);
        String oldUrl = before != null && before.serving() ? before.url() : null;
        String newUrl = now != null && now.serving() ? now.url() : null;
        if (Objects.equals(oldUrl, newUrl)) {
            return List.of();
        }
        List<Change> changes = new ArrayList<>(2);
        if (oldUrl != null) {
            String reason = now == null ? "deleted" : now.serving() ? "moved" : now.status().label();
            changes.add(new Change(Change.Kind.DRAIN, oldUrl, before, reason));
        }
        if (newUrl != null) {
            changes.add(new Change(Change.Kind.ADD, newUrl, now, null));
        }
        return changes;
    }
}
