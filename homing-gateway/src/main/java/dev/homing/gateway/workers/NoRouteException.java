package dev.homing.gateway.workers;

import dev.homing.gateway.http.ApiError;

/** No worker can be chosen for a request; carries the error the client gets. */
public final class NoRouteException extends Exception {

    private final ApiError error;

    public NoRouteException(ApiError error) {
        super(error.message(), null, false, false);
        this.error = error;
    }

    public ApiError error() {
        return error;
    }
}
