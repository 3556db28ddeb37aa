package dev.homing.sim.model;

import java.util.Locale;

/**
 * The text SGLang's disaggregation code gives a failed room: its {@code KVTransferError} names the bootstrap room,
 * then says what went wrong. Stateless.
 */
public final class KvTransferError {

    /** The poll state a prefill request is in while no decode engine has registered its room. */
    public static final String BOOTSTRAPPING = "Bootstrapping";
    /** The poll state a decode request is in while its prefill has not handed the KV over. */
    public static final String WAITING_FOR_INPUT = "WaitingForInput";

    private KvTransferError() {
    }

    /** {@code KVTransferError(bootstrap_room=R): reason}. */
    public static String of(long room, String reason) {
        return "KVTransferError(bootstrap_room=" + room + "): " + reason;
    }

    /** A room that waited {@code elapsedNanos} in poll state {@code state} for its partner. */
    public static String timedOut(long room, long elapsedNanos, String state) {
        return of(room, String.format(Locale.ROOT, "Request %d timed out after %.1fs in KVPoll.%s", room,
            elapsedNanos / 1e9, state));
    }
}
