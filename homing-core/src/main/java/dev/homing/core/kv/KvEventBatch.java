package dev.homing.core.kv;

import java.util.List;
import java.util.OptionalInt;

/**
 * One message of an engine's KV event stream: the events of one scheduler step, in order.
 *
 * @param timestamp     the engine's clock when it sent the batch, in seconds (informative only)
 * @param events        the events understood, in the engine's order
 * @param dpRank        the data-parallel rank whose cache this is, when the engine says (it omits rank 0)
 * @param skippedEvents events of a type this decoder does not know, left out of {@code events}
 */
public record KvEventBatch(double timestamp, List<KvEvent> events, OptionalInt dpRank, int skippedEvents) {

    public KvEventBatch {
        events = List.copyOf(events);
    }
}
