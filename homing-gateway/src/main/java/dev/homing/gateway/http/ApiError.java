package dev.homing.gateway.http;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.vertx.core.http.HttpServerResponse;
import tools.jackson.databind.json.JsonMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error the gateway itself answers with, in the OpenAI shape {@code {"error":{"message","type","code"}}} and with
 * the reference's {@code X-SMG-Error-Code} header, so clients and dashboards built for either keep working.
 *
 * @param status  HTTP status
 * @param code    stable snake_case code, such as {@code no_available_workers}
 * @param message words for a person
 */
public record ApiError(int status, String code, String message) {

    private static final JsonMapper JSON = JsonMapper.shared();

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

    public String json() {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("message", message);
        error.put("type", HttpResponseStatus.valueOf(status).reasonPhrase());
        error.put("code", code);
        return JSON.writeValueAsString(Map.of("error", error));
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
}
