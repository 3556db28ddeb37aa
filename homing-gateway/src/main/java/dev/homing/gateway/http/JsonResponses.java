package dev.homing.gateway.http;

import io.vertx.core.http.HttpServerResponse;
import tools.jackson.databind.json.JsonMapper;

/** Sends small JSON answers (admin and info routes); never used on the inference path. */
public final class JsonResponses {

    private static final JsonMapper JSON = JsonMapper.shared();

    private JsonResponses() {
    }

    public static void send(HttpServerResponse response, int status, Object body) {
        if (response.ended() || response.closed()) {
            return;
        }
        response.setStatusCode(status).putHeader("content-type", "application/json")
                .end(JSON.writeValueAsString(body));
    }}
