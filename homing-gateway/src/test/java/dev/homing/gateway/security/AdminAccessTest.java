package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Admin routes on a running gateway: refused without credentials, open to the admin key only. */
class AdminAccessTest {

    private static final String BODY = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @RegisterExtension
    static final FakeWorker worker = FakeWorker.start("model-a");

    private static HttpResponse<String> get(RunningGateway gateway, String path, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gateway.url(path)))
                .timeout(Duration.ofSeconds(10)).GET();
        if (authorization != null) {
            request.header("authorization", authorization);
        }
        return gateway.send(request.build());
    }

    @Test
    void withNoKeyAtAllAdminRoutesAreRefusedAndInferenceStaysOpen() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                .with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, false))) {
            for (String path : List.of("/workers", "/get_loads", "/engine_metrics")) {
                HttpResponse<String> response = get(gateway, path, null);
                assertThat(response.statusCode()).as(path).isEqualTo(403);
                assertThat(response.headers().firstValue("x-smg-error-code")).hasValue("admin_disabled");
            }
            assertThat(gateway.post("/workers", "{\"url\":\"http://127.0.0.1:1\"}").statusCode()).isEqualTo(403);
            assertThat(gateway.post("/v1/chat/completions", BODY).statusCode()).isEqualTo(200);
            assertThat(get(gateway, "/health", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theAdminKeyOpensAdminRoutesAndNothingElseDoes() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                .with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, false).with(Settings.ADMIN_API_KEY, "admin-secret"))) {
            HttpResponse<String> missing = get(gateway, "/workers", null);
            assertThat(missing.statusCode()).isEqualTo(401);
            assertThat(missing.headers().firstValue("www-authenticate")).hasValue("Bearer");
            assertThat(get(gateway, "/workers", "Bearer wrong").statusCode()).isEqualTo(401);
            assertThat(get(gateway, "/workers", "Bearer admin-secret").statusCode()).isEqualTo(200);
            assertThat(gateway.post("/v1/chat/completions", BODY).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theApiKeyGuardsInferenceAndAdminWhenNoAdminKeyIsSet() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of(worker))
                .with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, false).with(Settings.API_KEY, "client-secret"))) {
            HttpResponse<String> inference = gateway.post("/v1/chat/completions", BODY);
            assertThat(inference.statusCode()).isEqualTo(401);
            assertThat(inference.headers().firstValue("www-authenticate")).hasValue("Bearer");
            assertThat(gateway.post("/v1/chat/completions", BODY, "authorization", "Bearer client-secret")
                    .statusCode()).isEqualTo(200);
            assertThat(get(gateway, "/get_loads", null).statusCode()).isEqualTo(401);
            assertThat(get(gateway, "/get_loads", "Bearer client-secret").statusCode()).isEqualTo(200);
        }
    }
}
