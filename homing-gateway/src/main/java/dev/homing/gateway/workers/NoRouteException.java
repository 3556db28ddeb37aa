package dev.homing.gateway.workers;

/** No worker can be chosen for a request; carries the HTTP status and error code the client gets. */
public final class NoRouteException extends Exception {

    private final int status;
    private final String code;

    public NoRouteException(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
