package dev.homing.sim.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the prefill and the decode roles share: an {@link Engine} running the requests of bootstrap rooms, and
 * events of the role's own (a room's deadline, a transfer's arrival) interleaved with the engine's steps in time
 * order. Each room has at most one request here; its events carry the room, not the engine's request id, and its
 * progress counts from the request's arrival at the role, not at the engine (a decode request reaches its engine only
 * once its KV has arrived).
 *
 * <p>Not thread-safe: one driver owns it.
 *
 * @param <R> what the role knows of one room
 */
public abstract sealed class RoomEngine<R> implements VirtualTimeModel<RoomEvent> permits PrefillEngine, DecodeEngine {
    /** The engine computing the rooms' requests; the role hands it requests, never the driver. */
    final Engine engine;
    /** How long a room waits for its partner. */
    final long bootstrapTimeoutNanos;
    /** Every room the role holds anything of, by its number. */
    final Map<Long, R> rooms = new HashMap<>();
    private final Map<Long, Tracked> roomOfRequest = new HashMap<>();
    private final List<RoomEvent> outbox = new ArrayList<>();
    /** The role's virtual time: the latest time it was told of. */
    long now;

    RoomEngine(EngineConfig config, DisaggregationConfig disaggregation) {
        this.engine = new Engine(config);
        this.bootstrapTimeoutNanos = disaggregation.bootstrapTimeoutNanos();
    }

    /** When the role's own next event is due, or {@link Long#MAX_VALUE} when none is. */
    abstract long nextRoomEventNanos();

    /** Handles the role's own event due now ({@link #now} is its time). */
    abstract void onRoomEvent();

    /** Rooms this role holds anything of: a request in any state, or a registration. */
    public final int rooms() {
        return rooms.size();
    }

    @Override
    public final List<RoomEvent> advanceTo(long atNanos) {
        runUntil(atNanos);
        List<RoomEvent> done = List.copyOf(outbox);
        outbox.clear();
        return done;
    }

    @Override
    public final long nextEventNanos() {
        return Math.min(engine.nextEventNanos(), nextRoomEventNanos());
    }

    /** The engine's settings. */
    public final EngineConfig config() {
        return engine.config();
    }

    public final EngineStats stats() {
        return engine.stats();
    }

    /** Empties the cache if nothing runs, as {@link Engine#flushCache} does. */
    public final boolean flushCache(long atNanos) {
        runUntil(atNanos);
        return engine.flushCache(atNanos);
    }

    /** Loses the cache at {@code atNanos}, busy or not, as a restart of the engine would ({@link Engine#loseCache}). */
    public final void loseCache(long atNanos) {
        runUntil(atNanos);
        engine.loseCache(atNanos);
    }

    /** Takes every event due by {@code atNanos}, the engine's and the role's, in time order. */
    final void runUntil(long atNanos) {
        long next = nextRoomEventNanos();
        while (next != Long.MAX_VALUE && next <= atNanos) {
            collect(engine.advanceTo(next));
            now = Math.max(now, next);
            onRoomEvent();
            next = nextRoomEventNanos();
        }
        collect(engine.advanceTo(atNanos));
        now = Math.max(now, atNanos);
    }

    /** A room's request on the engine, and when it arrived at the role. */
    private record Tracked(long room, long arrivalNanos) {
    }

    /** The engine's request {@code engineId} serves {@code room}, which arrived here at {@code arrivalNanos}. */
    final void track(long room, long engineId, long arrivalNanos) {
        roomOfRequest.put(engineId, new Tracked(room, arrivalNanos));
    }

    /** Takes {@code room}'s request, the engine's {@code engineId}, off the engine now. */
    final void abortOnEngine(long engineId) {
        roomOfRequest.remove(engineId);
        engine.abort(engineId, now);
    }

    final void emit(RoomEvent event) {
        outbox.add(event);
    }

    /** {@code room} waited the whole bootstrap timeout in poll state {@code state}: it fails, and is forgotten. */
    final void expire(long room, String state) {
        rooms.remove(room);
        emit(new RoomEvent.Failed(room, now, KvTransferError.timedOut(room, bootstrapTimeoutNanos, state)));
    }

    private void collect(List<Progress> progress) {
        for (Progress p : progress) {
            Tracked tracked = p.finished() ? roomOfRequest.remove(p.requestId()) : roomOfRequest.get(p.requestId());
            if (tracked == null) {
                continue;
            }
            if (p.finished()) {
                rooms.remove(tracked.room());
            }
            outbox.add(new RoomEvent.Tokens(tracked.room(), new Progress(p.requestId(), tracked.arrivalNanos(),
                p.atNanos(), p.promptTokens(), p.cachedTokens(), p.completionTokens(), p.finished())));
        }
    }
}
