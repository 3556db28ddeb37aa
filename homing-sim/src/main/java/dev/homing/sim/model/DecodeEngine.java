package dev.homing.sim.model;

import java.util.Comparator;
import java.util.TreeSet;

/**
 * A decode engine: receives the KV of each bootstrap room's prompt from the prefill engine that computed it, over its
 * {@link TransferLink}, then decodes the request on its {@link Engine} as a transferred request (no prefill, no cache
 * match; the first token it emits is the prefill's).
 *
 * <p>A room's request waits here ({@link #submit}) until its prefill is handed over ({@link #kvReady}): then its KV,
 * the whole prompt at {@code kvBytesPerToken} a token, crosses the link, and when it has arrived the request queues on
 * the engine with the prefill engine's cached tokens, which its usage reports. A request not handed over within
 * {@code bootstrapTimeoutNanos} fails with SGLang's {@code KVPoll.WaitingForInput} timeout; the driver fails it sooner
 * when it learns that the prefill cannot come ({@link #fail}).
 *
 * <p>Invariants: a room's request is in exactly one of waiting, crossing the link, or on the engine; it ends exactly
 * once, by its last token or its failure, unless it is aborted. Not thread-safe: one driver owns it.
 */
public final class DecodeEngine extends RoomEngine<DecodeEngine.Room> {
    private static final Comparator<Room> BY_DEADLINE =
        Comparator.<Room>comparingLong(room -> room.deadlineNanos).thenComparingLong(room -> room.room);
    private static final Comparator<Room> BY_ARRIVAL =
        Comparator.<Room>comparingLong(room -> room.kvArrivesNanos).thenComparingLong(room -> room.room);

    private final long kvBytesPerToken;
    private final TransferLink link;
    private final TreeSet<Room> waiting = new TreeSet<>(BY_DEADLINE);
    private final TreeSet<Room> crossing = new TreeSet<>(BY_ARRIVAL);

    public DecodeEngine(EngineConfig config, DisaggregationConfig disaggregation) {
        super(config, disaggregation);
        this.kvBytesPerToken = disaggregation.kvBytesPerToken();
        this.link = disaggregation.link();
    }

    /** One room's request. */
    static final class Room {
        final long room;
        final GenerationRequest request;
        final long arrivalNanos;
        final long deadlineNanos;
        long kvArrivesNanos;
        int cachedTokens;
        long engineId = -1;

        Room(long room, GenerationRequest request, long arrivalNanos, long deadlineNanos) {
            this.room = room;
            this.request = request;
            this.arrivalNanos = arrivalNanos;
            this.deadlineNanos = deadlineNanos;
        }
    }

    /**
     * The decode request of {@code room} arrives at {@code atNanos}; it waits for its prefill.
     *
     * @throws IllegalArgumentException if the engine could never run it, or the room already has a request here
     */
    public void submit(long room, GenerationRequest request, long atNanos) {
        engine.check(request);
        runUntil(atNanos);
        if (rooms.containsKey(room)) {
            throw new IllegalArgumentException("bootstrap room " + room + " is already in use");
        }
        Room entry = new Room(room, request, now, now + bootstrapTimeoutNanos);
        rooms.put(room, entry);
        waiting.add(entry);
    }

    /**
     * The prefill of {@code room} is done at {@code atNanos}, with {@code cachedTokens} of its prompt found in the
     * prefill engine's cache: the KV starts across the link.
     *
     * @return false, with nothing changed, when the room's request is not waiting here
     */
    public boolean kvReady(long room, int cachedTokens, long atNanos) {
        runUntil(atNanos);
        Room entry = rooms.get(room);
        if (entry == null || !waiting.remove(entry)) {
            return false;
        }
        entry.cachedTokens = cachedTokens;
        entry.kvArrivesNanos = link.transfer(now, (long) entry.request.promptTokens().length * kvBytesPerToken);
        crossing.add(entry);
        return true;
    }

    /**
     * The request of {@code room} fails at {@code atNanos} for {@code reason} (a {@link KvTransferError} text): its
     * prefill failed or cannot be reached.
     *
     * @return false when the room has no request here
     */
    public boolean fail(long room, String reason, long atNanos) {
        runUntil(atNanos);
        if (!remove(room)) {
            return false;
        }
        emit(new RoomEvent.Failed(room, now, reason));
        return true;
    }

    /** Abandons the request of {@code room} at {@code atNanos} (its client went away); it reports nothing more. */
    public void abort(long room, long atNanos) {
        runUntil(atNanos);
        remove(room);
    }

    /** Whether the request of {@code room} is here, in any state. */
    public boolean has(long room) {
        return rooms.containsKey(room);
    }

    @Override
    long nextRoomEventNanos() {
        long deadline = waiting.isEmpty() ? Long.MAX_VALUE : waiting.first().deadlineNanos;
        long arrival = crossing.isEmpty() ? Long.MAX_VALUE : crossing.first().kvArrivesNanos;
        return Math.min(deadline, arrival);
    }

    @Override
    void onRoomEvent() {
        if (!crossing.isEmpty() && crossing.first().kvArrivesNanos <= now) {
            Room arrived = crossing.pollFirst();
            arrived.engineId = engine.submitTransferred(arrived.request, arrived.cachedTokens, now);
            track(arrived.room, arrived.engineId, arrived.arrivalNanos);
            return;
        }
        expire(waiting.pollFirst().room, KvTransferError.WAITING_FOR_INPUT);
    }

    private boolean remove(long room) {
        Room entry = rooms.remove(room);
        if (entry == null) {
            return false;
        }
        waiting.remove(entry);
        crossing.remove(entry);
        if (entry.engineId >= 0) {
            abortOnEngine(entry.engineId);
        }
        return true;
    }
}
