package dev.homing.gateway.proxy;

/** A request body the gateway refuses to forward; the message is shown to the client. */
public final class BadRequestException extends Exception {

    public BadRequestException(String message) {
        super(message, null, false, false);
    }
}
