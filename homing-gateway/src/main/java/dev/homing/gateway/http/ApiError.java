package dev.homing.gateway.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error the gateway itself answers with, as OpenAI's error object
 * {@code {"error":{"message","type","param","code"}}}: {@code type} is one of OpenAI's values, worked out from the
 * status (see {@link #type()}), so SDKs and users can branch on it; {@code param} names the request field at fault,
 * or is null; {@code code} is the gateway's own snake_case code, also sent as the reference's
 * {@code X-SMG-Error-Code} header, so clients and dashboards built for either keep working.
 *
 * @param status  HTTP status
 * @param code    stable snake_case code, such as {@code no_available_workers}
 * @param message words for a person
 * @param param   the request field the error is about, such as {@code model}; null when none applies
 */
public record ApiError(int status, String code, String message, String param) {

    private static final JsonMapper JSON = JsonMapper.shared();

    /** An error about no field in particular, or whose field the code names ({@link #paramOf}). */
    public ApiError(int status, String code, String message) {
        this(status, code, message, paramOf(code));
    }

    public static ApiError badRequest(String message) {
        return new ApiError(400, "invalid_request", message);
    }

    public static ApiError notFound(String what) {
        return new ApiError(404, "not_found", what);
    }

    /**
     * Answers 405 with the {@code Allow} header the status requires (RFC 9110 section 15.5.6).
     *
     * @param allow the methods {@code path} accepts, such as {@code "GET"} or {@code "GET, POST"}
     */
    public static void sendMethodNotAllowed(HttpServerResponse response, String path, String allow) {
        if (response.headWritten() || response.ended() || response.closed()) {
            return;
        }
        response.putHeader("allow", allow);
        new ApiError(405, "method_not_allowed", path + " accepts only " + allow)
                .send(response);
    }

    /**
     * OpenAI's error type for this error: the class of problem an SDK branches on. The request's own fault is
     * {@code invalid_request_error} (a version or transfer coding the gateway does not implement included, though
     * their statuses are 5xx), with the three 4xx that OpenAI names apart; any other 5xx is the service's.
     */
    public String type() {
        return switch (status) {
            case 401 -> "authentication_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 429 -> "rate_limit_error";
            case 501, 505 -> "invalid_request_error";
            default -> status >= 500 ? "server_error" : "invalid_request_error";
        };
    }

    /** The request field a gateway code is about, for the codes that name one; null otherwise. */
    private static String paramOf(String code) {
        return switch (code) {
            case "model_required", "model_not_found" -> "model";
            default -> null;
        };
    }

    public String json() {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        error.put("type", type());
        error.put("param", param);
        error.put("code", code);
        return JSON.writeValueAsString(Map.of("error", error));
    }

    /**
     * This error as one server-sent event ({@code data: {"error":{...}}} and the blank line that ends it), for an
     * answer whose event stream has already begun and can only be ended with an event the client parses.
     */
    public String sseEvent() {
        return "data: " + json() + "\n\n";
    }

    /** Sends this error unless the response has already started. */
    public void send(HttpServerResponse response) {
        if (response.headWritten() || response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status)
                .putHeader("content-type", "application/json")
                .putHeader("x-smg-error-code", code)
                .end(json());
    }

    /**
     * Sends this error with {@code Connection: close} and closes the connection: for a request whose framing cannot
     * be trusted, after which nothing else the client sent on that connection may be read as a request.
     */
    public void sendAndClose(HttpServerRequest request) {
        request.response().putHeader("connection", "close");
        send(request.response());
        request.connection().close();
    }
}
