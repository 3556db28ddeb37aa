package dev.homing.gateway;

import dev.homing.config.Config;
import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.http.Route;
import dev.homing.gateway.security.RouteAccess.Kind;
import dev.homing.gateway.testing.RunningGateway;
import io.vertx.core.http.HttpMethod;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The data plane's route table on a running gateway: what it declares is served, counted and guarded; nothing else. */
class RouteTableTest {

    private static final String ADMIN = "Bearer admin-secret";
    private static final String INFERENCE = "Bearer client-secret";
    private static final List<String> METHODS = List.of("GET", "POST", "PUT", "DELETE", "PATCH");

    /** No workers, both keys set, admin routes closed without the admin key. */
    private static Config keyed() {
        return RunningGateway.config(List.of()).with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, false)
                .with(Settings.API_KEY, "client-secret").with(Settings.ADMIN_API_KEY, "admin-secret");
    }

    private static RunningGateway start(Config config, List<Route> extraRoutes) {
        return RunningGateway.around(Gateway.start(new GatewayConfig(config), extraRoutes), config);
    }

    private static HttpResponse<String> send(RunningGateway gateway, String method, String path, String authorization) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(gateway.url(path)))
                .timeout(Duration.ofSeconds(20)).method(method, HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            request.header("authorization", authorization);
        }
        return gateway.send(request.build());
    }

    @Test
    void aRouteAddedInOnePlaceIsServedCountedAndGuarded() {
        Route ping = Route.answered(HttpMethod.GET, "/test/ping/{word}", Kind.ADMIN,
                (req, word) -> req.response().end("pong " + word));
        try (RunningGateway gateway = start(keyed(), List.of(ping))) {
            HttpResponse<String> served = send(gateway, "GET", "/test/ping/hello", ADMIN);
            assertThat(served.statusCode()).isEqualTo(200);
            assertThat(served.body()).isEqualTo("pong hello");
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(
                    "smg_http_requests_total{method=\"GET\",path=\"/test/ping/{word}\"}") == 1);

            for (String authorization : new String[] {null, INFERENCE, "Bearer wrong"}) {
                HttpResponse<String> refused = send(gateway, "GET", "/test/ping/hello", authorization);
                assertThat(refused.statusCode()).as(authorization).isEqualTo(401);
                assertThat(refused.body()).doesNotContain("pong").contains("\"code\":\"invalid_admin_key\"");
            }
            HttpResponse<String> wrongMethod = send(gateway, "POST", "/test/ping/hello", ADMIN);
            assertThat(wrongMethod.statusCode()).isEqualTo(405);
            assertThat(wrongMethod.headers().firstValue("allow")).hasValue("GET");
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(
                    "smg_http_requests_total{method=\"GET\",path=\"/test/ping/{word}\"}") == 4);
        }
    }

    @Test
    void everyRouteOfTheTableAnswers405WithItsAllowHeaderToAnyOtherMethod() {
        try (RunningGateway gateway = start(keyed(), List.of())) {
            Map<String, List<Route>> byPattern = gateway.gateway().routes().all().stream()
                    .collect(Collectors.groupingBy(Route::pattern, LinkedHashMap::new, Collectors.toList()));
            assertThat(byPattern).hasSizeGreaterThan(20);
            byPattern.forEach((pattern, routes) -> {
                List<String> methods = routes.stream().map(r -> r.method().name()).toList();
                String path = pattern.replaceAll("\\{[a-z]+}", "x");
                String authorization = routes.stream().anyMatch(r -> r.access() == Kind.INFERENCE) ? INFERENCE : ADMIN;
                for (String method : METHODS) {
                    if (!methods.contains(method)) {
                        HttpResponse<String> response = send(gateway, method, path, authorization);
                        assertThat(response.statusCode()).as(method + " " + path).isEqualTo(405);
                        assertThat(response.headers().firstValue("allow")).as(method + " " + path)
                                .hasValue(String.join(", ", methods));
                        assertThat(response.body()).contains("\"code\":\"method_not_allowed\"");
                    }
                }
            });
        }
    }

    @Test
    void aWrongMethodOnAnAdminRouteIsRefusedForTheKeyBeforeItsMethodIsTold() {
        try (RunningGateway gateway = start(keyed(), List.of())) {
            assertThat(send(gateway, "PATCH", "/workers", null).statusCode()).isEqualTo(401);
        }
    }

    @Test
    void anUndeclaredPathIsRefusedWith404WithOrWithoutAKey() {
        List<String> paths = List.of("/", "/v2/models", "/workersx", "/admin", "/v1/models/", "/workers/", "/metrics");
        try (RunningGateway gateway = start(keyed(), List.of())) {
            for (String path : paths) {
                for (String authorization : new String[] {null, INFERENCE, ADMIN}) {
                    HttpResponse<String> response = send(gateway, "GET", path, authorization);
                    assertThat(response.statusCode()).as(path).isEqualTo(404);
                    assertThat(response.body()).contains("\"type\":\"not_found_error\"")
                            .contains("\"code\":\"not_found\"");
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.metric(
                    "smg_http_requests_total{method=\"GET\",path=\"other\"}") == paths.size() * 3);
        }
    }

    @Test
    void theMetricsPortServesOnlyItsOwnTable() {
        try (RunningGateway gateway = start(keyed(), List.of())) {
            String metrics = "http://127.0.0.1:" + gateway.gateway().metricsPort();
            HttpResponse<String> scrape = gateway.send(HttpRequest.newBuilder(URI.create(metrics + "/metrics"))
                    .timeout(Duration.ofSeconds(20)).GET().build());
            HttpResponse<String> post = gateway.send(HttpRequest.newBuilder(URI.create(metrics + "/metrics"))
                    .timeout(Duration.ofSeconds(20)).POST(HttpRequest.BodyPublishers.noBody()).build());
            HttpResponse<String> other = gateway.send(HttpRequest.newBuilder(URI.create(metrics + "/workers"))
                    .timeout(Duration.ofSeconds(20)).header("authorization", ADMIN).GET().build());

            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.body()).contains("smg_http_connections_active");
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("allow")).hasValue("GET");
            assertThat(other.statusCode()).isEqualTo(404);
            assertThat(other.body()).contains("\"code\":\"not_found\"");
        }
    }

    @Test
    void theAdminRoutesAreTheWorkerApiTheFanOutRoutesAndTheKvEventStates() {
        try (RunningGateway gateway = start(keyed(), List.of())) {
            Set<String> admin = gateway.gateway().routes().all().stream().filter(r -> r.access() == Kind.ADMIN)
                    .map(r -> r.method().name() + " " + r.pattern()).collect(Collectors.toSet());
            assertThat(admin).containsExactlyInAnyOrder("GET /workers", "POST /workers", "GET /workers/{id}",
                    "PUT /workers/{id}", "DELETE /workers/{id}", "POST /flush_cache", "GET /get_loads",
                    "GET /engine_metrics", "GET /kv_events");
        }
    }
}
