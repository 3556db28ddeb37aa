package dev.homing.gateway.http;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

class ApiErrorTest {

    private static final JsonMapper JSON = JsonMapper.shared();

    @ParameterizedTest(name = "{0} {1} is {2}")
    @CsvSource({
            "400, invalid_request,           invalid_request_error",
            "401, missing_api_key,           authentication_error",
            "403, worker_host_not_allowed,   permission_error",
            "404, not_found,                 not_found_error",
            "405, method_not_allowed,        invalid_request_error",
            "408, client_header_timeout,     invalid_request_error",
            "413, payload_too_large,         invalid_request_error",
            "429, rate_limit_exceeded,       rate_limit_error",
            "501, unsupported_transfer_encoding, invalid_request_error",
            "502, call_upstream_failed,      server_error",
            "503, no_available_workers,      server_error",
            "504, call_upstream_timeout,     server_error",
            "505, http_version_not_supported, invalid_request_error"})
    void theTypeIsOpenAisNameForTheClassOfProblem(int status, String code, String type) {
        assertThat(new ApiError(status, code, "m").type()).isEqualTo(type);
    }

    @Test
    void theJsonIsOpenAisErrorObjectWithTheGatewayCodeInCode() {
        JsonNode error = JSON.readTree(new ApiError(503, "queue_timeout", "Waited too long").json()).path("error");

        assertThat(error.properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactly("message", "type", "param", "code");
        assertThat(error.path("message").asString()).isEqualTo("Waited too long");
        assertThat(error.path("type").asString()).isEqualTo("server_error");
        assertThat(error.path("param").isNull()).isTrue();
        assertThat(error.path("code").asString()).isEqualTo("queue_timeout");
    }

    @Test
    void aCodeAboutTheModelNamesModelAsTheParam() {
        assertThat(new ApiError(400, "model_not_found", "no such model").param()).isEqualTo("model");
        assertThat(new ApiError(400, "model_required", "say which").param()).isEqualTo("model");
        assertThat(new ApiError(400, "invalid_request", "bad").param()).isNull();
        assertThat(new ApiError(400, "invalid_request", "bad", "messages").param()).isEqualTo("messages");
    }

    @Test
    void theSseEventCarriesTheSameErrorObjectAndEndsTheEvent() {
        ApiError error = new ApiError(502, "upstream_stream_failed", "The worker broke off the stream");

        assertThat(error.sseEvent()).isEqualTo("data: " + error.json() + "\n\n");
        assertThat(JSON.readTree(error.sseEvent().substring("data: ".length())).path("error").path("type")
                .asString()).isEqualTo("server_error");
    }
}
