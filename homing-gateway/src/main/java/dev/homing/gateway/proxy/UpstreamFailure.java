package dev.homing.gateway.proxy;

import dev.homing.gateway.http.ApiError;
import dev.homing.gateway.workers.Worker;
import io.netty.channel.ConnectTimeoutException;

import java.net.ConnectException;

/**
 * What a failed connection or request to a worker means, the same for every leg: the error a client would get, the
 * worker-error label of the metrics, and whether the worker refused the connection (nothing listens there: it is
 * down). Also how long a leg that found the gateway out of sockets waits before it connects again.
 *
 * @param error     the error to answer with when this failure is the last word
 * @param errorType {@code connection_failed} or {@code request_failed}, the {@code smg_worker_errors_total} label
 * @param refused   the worker refused the connection (a connect timeout is not a refusal: it may only be busy)
 */
record UpstreamFailure(ApiError error, String errorType, boolean refused) {

    /** The first wait for a free socket once the gateway ran out of them; it doubles up to the maximum. */
    private static final long SOCKET_WAIT_FIRST_MS = 50;
    private static final long SOCKET_WAIT_MAX_MS = 1_000;

    static UpstreamFailure of(Throwable err, Worker worker) {
        // Netty's connect timeout is a ConnectException too; only a refusal says nothing listens.
        boolean connect = isA(err, ConnectException.class);
        boolean refused = connect && !isA(err, ConnectTimeoutException.class);
        ApiError error = connect
                ? new ApiError(502, "call_upstream_connection_failed",
                        "Could not connect to worker " + worker.url() + ": " + err.getMessage())
                : new ApiError(502, "call_upstream_failed",
                        "Request to worker " + worker.url() + " failed: " + err.getMessage());
        return new UpstreamFailure(error, connect ? "connection_failed" : "request_failed", refused);
    }

    /** The pause before connecting again after the {@code waits}-th time the gateway had no socket to give. */
    static long socketWaitMillis(int waits) {
        return Math.min(SOCKET_WAIT_MAX_MS, SOCKET_WAIT_FIRST_MS << Math.min(waits, 5));
    }

    private static boolean isA(Throwable err, Class<? extends Throwable> type) {
        return type.isInstance(err) || type.isInstance(err.getCause());
    }
}
