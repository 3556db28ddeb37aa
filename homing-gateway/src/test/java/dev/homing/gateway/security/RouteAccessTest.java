package dev.homing.gateway.security;

import dev.homing.gateway.security.RouteAccess.Allowed;
import dev.homing.gateway.security.RouteAccess.Kind;
import dev.homing.gateway.security.RouteAccess.Refused;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RouteAccessTest {

    private static final String INFERENCE = "Bearer inference-key";
    private static final String ADMIN = "Bearer admin-key";

    @Test
    void publicRoutesNeedNoKey() {
        assertThat(new RouteAccess("k", "a", false).check(Kind.PUBLIC, null)).isInstanceOf(Allowed.class);
    }

    @Test
    void withNoKeysInferenceIsOpen() {
        assertThat(new RouteAccess(null, null, false).check(Kind.INFERENCE, null))
                .isInstanceOf(Allowed.class);
    }

    @Test
    void withNoKeysAdminRoutesAreRefusedWith403() {
        RouteAccess.Verdict v = new RouteAccess(null, null, false).check(Kind.ADMIN, null);

        assertThat(v).isInstanceOf(Refused.class);
        assertThat(((Refused) v).status()).isEqualTo(403);
        assertThat(((Refused) v).code()).isEqualTo("admin_disabled");
    }

    @Test
    void theOperatorCanOpenAdminRoutesExplicitly() {
        assertThat(new RouteAccess(null, null, true).check(Kind.ADMIN, null)).isInstanceOf(Allowed.class);
    }

    @Test
    void theInferenceKeyGuardsInferenceRoutes() {
        RouteAccess access = new RouteAccess("inference-key", null, false);

        assertThat(access.check(Kind.INFERENCE, INFERENCE)).isInstanceOf(Allowed.class);
        assertThat(access.check(Kind.INFERENCE, "Bearer nope"))
                .isEqualTo(new Refused(401, "invalid_api_key", "Missing or wrong API key"));
        assertThat(access.check(Kind.INFERENCE, null)).isInstanceOf(Refused.class);
    }

    @Test
    void withoutAnAdminKeyTheInferenceKeyOpensAdminRoutesAsInTheReference() {
        RouteAccess access = new RouteAccess("inference-key", null, false);

        assertThat(access.check(Kind.ADMIN, INFERENCE)).isInstanceOf(Allowed.class);
        assertThat(access.check(Kind.ADMIN, null)).isInstanceOf(Refused.class);
    }

    @Test
    void withAnAdminKeyTheInferenceKeyNoLongerOpensAdminRoutes() {
        RouteAccess access = new RouteAccess("inference-key", "admin-key", false);

        assertThat(access.check(Kind.ADMIN, INFERENCE)).isInstanceOf(Refused.class);
        assertThat(access.check(Kind.ADMIN, ADMIN)).isInstanceOf(Allowed.class);
        assertThat(((Refused) access.check(Kind.ADMIN, null)).status()).isEqualTo(401);
    }

    @Test
    void theAdminKeyAloneLeavesInferenceOpen() {
        RouteAccess access = new RouteAccess(null, "admin-key", false);

        assertThat(access.check(Kind.INFERENCE, null)).isInstanceOf(Allowed.class);
        assertThat(access.check(Kind.ADMIN, null)).isInstanceOf(Refused.class);
    }

    @Test
    void keysNeverAppearInToString() {
        assertThat(new RouteAccess("inference-key", "admin-key", false).toString())
                .doesNotContain("inference-key").doesNotContain("admin-key");
    }
}
