package dev.homing.sim.http;

import dev.homing.sim.model.EngineStats;
import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.RoomEngine;
import dev.homing.sim.model.RoomEvent;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the prefill and the decode side share: one role engine model in scaled real time, items keyed by their
 * bootstrap room, and no serving alone: an item without bootstrap fields is a 400. {@code /health_generate}
 * answers at once (a role engine cannot run a generation by itself).
 *
 * @param <M> the role's model
 */
abstract sealed class RoomSide<M extends RoomEngine<?>> implements InferenceBackend permits PrefillSide, DecodeSide {
    /** SGLang's words when a room's request is aborted. */
    static final String ABORTED = "Aborted by AbortReq.";

    final ModelDriver<M, RoomEvent> driver;
    private final String role;

    RoomSide(Vertx vertx, M model, String role, double timeScale, Consumer<Progress> observer) {
        this.driver = new ModelDriver<>(vertx, model, timeScale, System.nanoTime(), event -> {
            if (event instanceof RoomEvent.Tokens tokens) {
                observer.accept(tokens.progress());
            }
        }, RoomEvent::room, RoomEvent::ends);
        this.role = role;
    }

    /**
     * The item's room, checked: this engine serves only the half of a prefill/decode request.
     *
     * @throws BadRequest for an item without bootstrap fields, or one asking for a rank this engine lacks
     */
    final InferenceRequest.Bootstrap roomOf(InferenceRequest item) {
        if (item.bootstrap() == null) {
            throw new BadRequest("this is a " + role + " engine: it serves only prefill/decode requests, which carry '"
                + BootstrapFields.HOST + "', '" + BootstrapFields.PORT + "' and '" + BootstrapFields.ROOM + "'; it "
                + "cannot serve a request alone");
        }
        if (item.dataParallelRank() != null) {
            RankedEngines.checkRank(item.dataParallelRank(), 1);
        }
        return item.bootstrap();
    }

    /** The request the role engine runs for {@code item}. */
    static GenerationRequest generation(InferenceRequest item) {
        return new GenerationRequest(item.promptTokens(), item.maxNewTokens());
    }

    /** Runs {@code change} on the model, turning an engine's refusal into a 400. */
    static void refusedAsBadRequest(Runnable change) {
        try {
            change.run();
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
    }

    /** Rooms the role holds anything of: what must come back to zero once its requests are over. */
    final int rooms() {
        driver.pump();
        return driver.model().rooms();
    }

    @Override
    public final List<EngineStats> stats() {
        driver.pump();
        return List.of(driver.model().stats());
    }

    @Override
    public final boolean flushCache() {
        driver.pump();
        return driver.model().flushCache(driver.virtualNow());
    }

    @Override
    public final void loseCaches() {
        driver.pump();
        driver.model().loseCache(driver.virtualNow());
        driver.pump();
    }

    @Override
    public final void healthGenerate(Runnable done) {
        done.run();
    }

    @Override
    public final long virtualNow() {
        return driver.virtualNow();
    }
}
