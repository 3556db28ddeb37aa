package dev.homing.sim.http;

import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.Progress;
import java.util.List;

/**
 * What serves the items of inference requests on this engine: its data-parallel ranks ({@link RankedEngines}), or
 * the prefill or decode half of prefill/decode requests ({@link PrefillSide}, {@link DecodeSide}). Each item runs on
 * one engine model and reports its tokens, or its failure before any token.
 *
 * <p>Confined to the server's event loop, as the drivers it holds.
 */
interface InferenceBackend {

    /** What one item's run reports: progress events (the last one finished), or one failure before any. */
    interface Listener {
        void progress(Progress progress);

        /** The item failed: the message is the engine's, for an HTTP 500. */
        void failed(String message);
    }

    /**
     * Starts {@code item}; {@code rid} names it in error messages.
     *
     * @return what abandons the item (its client went away): it reports nothing more and frees what it held
     * @throws BadRequest when this engine cannot take the item
     */
    Runnable start(InferenceRequest item, String rid, Listener listener);

    /** Whether this engine computes the prompts it serves (a decode engine receives their KV instead). */
    boolean computesPrompts();

    /** Each engine's stats, a rank's each, in rank order. */
    List<EngineStats> stats();

    /** Empties every cache, as {@code /flush_cache}; false, with nothing flushed, when one is busy. */
    boolean flushCache();

    /** Every engine loses its cache at once, busy or not, as a restart of the engine would. */
    void loseCaches();

    /** A one-token generation for {@code /health_generate}: {@code done} runs when it is answered. */
    void healthGenerate(Runnable done);

    /** Virtual nanoseconds since start-up. */
    long virtualNow();

    /** Stops its timers and connections. */
    void close();
}
