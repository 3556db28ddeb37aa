package dev.homing.sim.model;

/**
 * What a prefill or a decode engine reports of the request it serves for one bootstrap room: its tokens, or its
 * failure. A room's last event {@linkplain #ends ends} it.
 */
public sealed interface RoomEvent {

    /** The bootstrap room of the request. */
    long room();

    /** Whether the room's request is over here. */
    boolean ends();

    /** The request's progress at the end of a scheduler step, as {@link Engine} reports it. */
    record Tokens(long room, Progress progress) implements RoomEvent {
        @Override
        public boolean ends() {
            return progress.finished();
        }
    }

    /**
     * The request failed before any token, at {@code atNanos}.
     *
     * @param reason SGLang's exception text, {@code KVTransferError(bootstrap_room=...): ...}
     */
    record Failed(long room, long atNanos, String reason) implements RoomEvent {
        @Override
        public boolean ends() {
            return true;
        }
    }
}
