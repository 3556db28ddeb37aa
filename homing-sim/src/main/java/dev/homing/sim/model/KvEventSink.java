package dev.homing.sim.model;

import dev.homing.core.kv.KvEvent;
import java.util.function.Consumer;

/**
 * Where an {@link Engine} tells its KV cache's changes: each event during the step that makes it, then the end of
 * that step's batch, as SGLang's scheduler publishes one batch per iteration.
 */
public interface KvEventSink extends Consumer<KvEvent> {

    /**
     * The events told since the last end are one batch: a step ended, or a call that may have changed the cache
     * returned. Told whether or not any event came (an empty batch is not sent).
     */
    void batchEnded();
}
