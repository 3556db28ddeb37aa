package dev.homing.gateway.security;

import dev.homing.gateway.security.RouteAccess.Allowed;
import dev.homing.gateway.security.RouteAccess.Kind;
import dev.homing.gateway.security.RouteAccess.Refused;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class RouteAccessTest {

    private static final String INFERENCE = "Bearer inference-key";
    private static final String ADMIN = "Bearer admin-key";

    @ParameterizedTest
    @ValueSource(strings = {"/workers", "/workers/http%3A%2F%2Fa%3A1", "/flush_cache", "/get_loads", "/engine_metrics",
        "/kv_events"})
    void adminRoutesAreAdminKind(String path) {
        assertThat(RouteAccess.kindOf(path)).isEqualTo(Kind.ADMIN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/health", "/liveness", "/readiness", "/health_generate", "/v1/models",
            "/v1/models/org/model-1"})
    void probesAndDiscoveryArePublic(String path) {
        assertThat(new RouteAccess("k", null, false).check(path, null)).isInstanceOf(Allowed.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/v2/models", "/workersx", "/../workers"})
    void unroutedPathsPassThroughToTheRoutersNotFound(String path) {
        assertThat(RouteAccess.kindOf(path)).isEqualTo(Kind.UNROUTED);
        assertThat(new RouteAccess("k", "a", false).check(path, null)).isInstanceOf(Allowed.class);
    }

    @Test
    void withNoKeysInferenceIsOpen() {
        assertThat(new RouteAccess(null, null, false).check("/v1/chat/completions", null))
                .isInstanceOf(Allowed.class);
    }

    @Test
    void withNoKeysAdminRoutesAreRefusedWith403() {
        RouteAccess.Verdict v = new RouteAccess(null, null, false).check("/workers", null);

        assertThat(v).isInstanceOf(Refused.class);
        assertThat(((Refused) v).status()).isEqualTo(403);
        assertThat(((Refused) v).code()).isEqualTo("admin_disabled");
    }

    @Test
    void theOperatorCanOpenAdminRoutesExplicitly() {
        assertThat(new RouteAccess(null, null, true).check("/workers", null)).isInstanceOf(Allowed.class);
    }

    @Test
    void theInferenceKeyGuardsInferenceRoutes() {
        RouteAccess access = new RouteAccess("inference-key", null, false);

        assertThat(access.check("/v1/chat/completions", INFERENCE)).isInstanceOf(Allowed.class);
        assertThat(access.check("/v1/chat/completions", "Bearer nope"))
                .isEqualTo(new Refused(401, "invalid_api_key", "Missing or wrong API key"));
        assertThat(access.check("/generate", null)).isInstanceOf(Refused.class);
    }

    @Test
    void withoutAnAdminKeyTheInferenceKeyOpensAdminRoutesAsInTheReference() {
        RouteAccess access = new RouteAccess("inference-key", null, false);

        assertThat(access.check("/workers", INFERENCE)).isInstanceOf(Allowed.class);
        assertThat(access.check("/workers", null)).isInstanceOf(Refused.class);
    }

    @Test
    void withAnAdminKeyTheInferenceKeyNoLongerOpensAdminRoutes() {
        RouteAccess access = new RouteAccess("inference-key", "admin-key", false);

        assertThat(access.check("/workers", INFERENCE)).isInstanceOf(Refused.class);
        assertThat(access.check("/workers", ADMIN)).isInstanceOf(Allowed.class);
        assertThat(((Refused) access.check("/flush_cache", null)).status()).isEqualTo(401);
    }

    @Test
    void theAdminKeyAloneLeavesInferenceOpen() {
        RouteAccess access = new RouteAccess(null, "admin-key", false);

        assertThat(access.check("/v1/completions", null)).isInstanceOf(Allowed.class);
        assertThat(access.check("/get_loads", null)).isInstanceOf(Refused.class);
    }

    @Test
    void keysNeverAppearInToString() {
        assertThat(new RouteAccess("inference-key", "admin-key", false).toString())
                .doesNotContain("inference-key").doesNotContain("admin-key");
    }
}
