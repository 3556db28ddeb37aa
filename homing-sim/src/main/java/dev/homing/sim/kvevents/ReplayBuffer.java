package dev.homing.sim.kvevents;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The last batches sent, by sequence number, for the replay socket: vLLM's {@code buffer_steps}. Confined to the
 * publisher's thread.
 */
final class ReplayBuffer {

    /** One batch as it went out. */
    record Sent(long sequence, byte[] payload) {
    }

    private final int capacity;
    private final ArrayDeque<Sent> batches = new ArrayDeque<>();

    ReplayBuffer(int capacity) {
        this.capacity = capacity;
    }

    /** Keeps a batch; batches come in sequence order, the oldest is forgotten beyond the capacity. */
    void add(long sequence, byte[] payload) {
        if (batches.size() == capacity) {
            batches.removeFirst();
        }
        batches.addLast(new Sent(sequence, payload));
    }

    /** The kept batches from {@code sequence} on, in order (from the oldest kept when it is older still). */
    List<Sent> from(long sequence) {
        return batches.stream().filter(sent -> sent.sequence() >= sequence).toList();
    }

    /** A restarted publisher replays nothing of the stream before it. */
    void clear() {
        batches.clear();
    }
}
