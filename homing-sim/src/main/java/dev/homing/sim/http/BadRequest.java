package dev.homing.sim.http;

/** A request the engine refuses with 400; the message goes to the client. */
final class BadRequest extends RuntimeException {
    BadRequest(String message) {
        super(message, null, false, false);
    }
}
