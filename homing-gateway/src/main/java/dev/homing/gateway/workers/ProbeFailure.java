package dev.homing.gateway.workers;

import io.netty.channel.ConnectTimeoutException;
import tools.jackson.core.JacksonException;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Why a control-plane call to a worker (a registration probe, a health check) failed, in a few words an operator
 * reads in a log line, a 503 or {@code /readiness}: "connection refused", "timed out after 5 s", "answered HTTP 500
 * to /health", "bad answer: ...", "DNS: unknown host ...". Never an exception's class name.
 */
final class ProbeFailure {

    private ProbeFailure() {
    }

    /** A worker answered 2xx, but not what the gateway asked for (a status outside 2xx is an UnexpectedStatus). */
    static final class BadAnswer extends IllegalStateException {
        BadAnswer(String reason) {
            super(reason, null);
        }
    }

    /** The reason for {@code err}, a call made with {@code timeoutSecs} as its connect and idle timeout. */
    static String reason(Throwable err, long timeoutSecs) {
        Throwable cause = err;
        for (int depth = 0; cause != null && depth < 4; depth++, cause = cause.getCause()) {
            switch (cause) {
                case BadAnswer bad -> {
                    return bad.getMessage();
                }
                case UnexpectedStatus answered -> {
                    return "answered HTTP " + answered.status() + " to " + answered.path();
                }
                case UnknownHostException unknown -> {
                    return "DNS: unknown host " + unknown.getMessage();
                }
                case ConnectTimeoutException timeout -> {
                    return "connect timed out after " + timeoutSecs + " s";
                }
                case ConnectException connect -> {
                    String message = String.valueOf(connect.getMessage());
                    return message.toLowerCase(Locale.ROOT).contains("refused") ? "connection refused"
                            : "could not connect: " + message;
                }
                case TimeoutException timeout -> {
                    return "timed out after " + timeoutSecs + " s";
                }
                case JacksonException unreadable -> {
                    return "bad answer: not JSON";
                }
                default -> { }
            }
        }
        String message = err.getMessage();
        return message == null || message.isBlank() ? "failed without a reason" : message;
    }
}
