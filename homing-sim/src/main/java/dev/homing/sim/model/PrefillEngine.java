package dev.homing.sim.model;

import dev.homing.core.kv.KvEvent;
import java.util.Comparator;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A prefill engine: computes the prompts of bootstrap rooms on its {@link Engine} (its radix cache as a regular
 * engine's) and makes each one's first token, which hands the room's KV to the decode engine that registered it.
 *
 * <p>A room meets its two halves here, in either order: the prefill request ({@link #submit}) and the decode engine's
 * registration ({@link #register}). The request is parked until the room is registered, as SGLang's bootstrap queue
 * holds it, and only then queued on the engine; a request still parked {@code bootstrapTimeoutNanos} after it came
 * fails with SGLang's {@code KVPoll.Bootstrapping} timeout. A registration waits for its request as long as its decode
 * engine does; that engine withdraws it when it gives up ({@link #withdraw}).
 *
 * <p>The request computes its prompt and one token, whatever it asked for (the decode engine writes the rest): its
 * last {@link RoomEvent.Tokens} is that token, and the moment the KV is handed over. The KV's crossing is the decode
 * engine's business ({@link DecodeEngine}); here the request ends at its first token.
 *
 * <p>Invariants: a room is known here while its request or its registration is; a parked request is registered
 * nowhere and has not reached the engine; each room's request ends exactly once, by its last token or its failure,
 * unless it is aborted. Not thread-safe: one driver owns it.
 */
public final class PrefillEngine extends RoomEngine<PrefillEngine.Room> {
    private static final Comparator<Room> BY_DEADLINE =
        Comparator.<Room>comparingLong(room -> room.deadlineNanos).thenComparingLong(room -> room.room);

    private final TreeSet<Room> parked = new TreeSet<>(BY_DEADLINE);

    public PrefillEngine(EngineConfig config, DisaggregationConfig disaggregation) {
        super(config, disaggregation);
    }

    /**
     * Tells {@code sink} every change of the engine's cache from now on, as a regular engine's
     * ({@link Engine#publishKvEvents(KvEventSink)}): a router places prefills by what these caches hold. Call before
     * the first request.
     */
    public void publishKvEvents(KvEventSink sink) {
        engine.publishKvEvents(sink);
    }

    /** As {@link #publishKvEvents(KvEventSink)}, without the ends of batches ({@link Engine#publishKvEvents(Consumer)}). */
    public void publishKvEvents(Consumer<KvEvent> sink) {
        engine.publishKvEvents(sink);
    }

    /** One room's two halves, as far as they have come. */
    static final class Room {
        final long room;
        GenerationRequest request;
        long arrivalNanos;
        boolean registered;
        long deadlineNanos;
        long engineId = -1;

        Room(long room) {
            this.room = room;
        }
    }

    /**
     * The prefill request of {@code room} arrives at {@code atNanos}; it computes the prompt and one token.
     *
     * @throws IllegalArgumentException if the engine could never run it, or the room already has a request here
     */
    public void submit(long room, GenerationRequest request, long atNanos) {
        GenerationRequest prefill = new GenerationRequest(request.promptTokens(), 1);
        engine.check(prefill);
        runUntil(atNanos);
        Room known = rooms.get(room);
        if (known != null && known.request != null) {
            throw new IllegalArgumentException("bootstrap room " + room + " is already in use");
        }
        Room entry = known != null ? known : new Room(room);
        rooms.put(room, entry);
        entry.request = prefill;
        entry.arrivalNanos = now;
        if (entry.registered) {
            start(entry);
        } else {
            entry.deadlineNanos = now + bootstrapTimeoutNanos;
            parked.add(entry);
        }
    }

    /**
     * A decode engine registers {@code room} at {@code atNanos}: the room's request, parked or still to come, may run.
     *
     * @return false, with nothing changed, when the room is registered already
     */
    public boolean register(long room, long atNanos) {
        runUntil(atNanos);
        Room entry = rooms.computeIfAbsent(room, Room::new);
        if (entry.registered) {
            return false;
        }
        entry.registered = true;
        if (entry.request != null && entry.engineId < 0) {
            parked.remove(entry);
            start(entry);
        }
        return true;
    }

    /** The decode engine of {@code room} gave up on it or went away: its registration is forgotten. */
    public void withdraw(long room, long atNanos) {
        runUntil(atNanos);
        Room entry = rooms.get(room);
        if (entry == null) {
            return;
        }
        entry.registered = false;
        if (entry.request == null) {
            rooms.remove(room);
        }
    }

    /**
     * Abandons the prefill request of {@code room} at {@code atNanos} (its client went away); it reports nothing more.
     *
     * @return whether a decode engine had registered the room: its registration fails with the request
     */
    public boolean abort(long room, long atNanos) {
        runUntil(atNanos);
        Room entry = rooms.get(room);
        if (entry == null || entry.request == null) {
            return false;
        }
        rooms.remove(room);
        if (entry.engineId >= 0) {
            abortOnEngine(entry.engineId);
        } else {
            parked.remove(entry);
        }
        return entry.registered;
    }

    @Override
    long nextRoomEventNanos() {
        return parked.isEmpty() ? Long.MAX_VALUE : parked.first().deadlineNanos;
    }

    @Override
    void onRoomEvent() {
        expire(parked.pollFirst().room, KvTransferError.BOOTSTRAPPING);
    }

    private void start(Room entry) {
        entry.engineId = engine.submit(entry.request, now);
        track(entry.room, entry.engineId, entry.arrivalNanos);
    }
}
