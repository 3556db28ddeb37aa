package dev.homing.gateway.http;

import dev.homing.gateway.security.RouteAccess.Kind;
import io.vertx.core.http.HttpMethod;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoutesTest {

    private static Route route(HttpMethod method, String pattern, Kind access) {
        return Route.answered(method, pattern, access, (request, param) -> { });
    }

    private static final Routes TABLE = new Routes(List.of(
            route(HttpMethod.GET, "/workers", Kind.ADMIN),
            route(HttpMethod.POST, "/workers", Kind.ADMIN),
            route(HttpMethod.GET, "/workers/{id}", Kind.ADMIN),
            route(HttpMethod.GET, "/v1/models", Kind.PUBLIC),
            route(HttpMethod.GET, "/v1/models/{model}", Kind.PUBLIC),
            route(HttpMethod.GET, "/v1/models/special/{name}", Kind.INFERENCE),
            route(HttpMethod.GET, "/mixed", Kind.PUBLIC),
            route(HttpMethod.DELETE, "/mixed", Kind.ADMIN)));

    @Test
    void anExactPathIsItsOwnLabelAndHasNoParameter() {
        RouteMatch match = TABLE.match(HttpMethod.GET, "/workers");

        assertThat(match.route().pattern()).isEqualTo("/workers");
        assertThat(match.param()).isNull();
        assertThat(match.metricLabel()).isEqualTo("/workers");
        assertThat(match.access()).isEqualTo(Kind.ADMIN);
    }

    @Test
    void aParameterTakesTheRestOfThePathSlashesIncludedAndTheLabelIsThePattern() {
        RouteMatch match = TABLE.match(HttpMethod.GET, "/v1/models/org/model-1");

        assertThat(match.route().pattern()).isEqualTo("/v1/models/{model}");
        assertThat(match.param()).isEqualTo("org/model-1");
        assertThat(match.metricLabel()).isEqualTo("/v1/models/{model}");
    }

    @Test
    void theLongestPrefixWins() {
        assertThat(TABLE.match(HttpMethod.GET, "/v1/models/special/x").route().pattern())
                .isEqualTo("/v1/models/special/{name}");
    }

    @Test
    void aDeclaredPathWithAnotherMethodNamesWhatItAllowsAndIsGuardedByItsStrictestRoute() {
        RouteMatch workers = TABLE.match(HttpMethod.DELETE, "/workers");
        RouteMatch mixed = TABLE.match(HttpMethod.PUT, "/mixed");

        assertThat(workers.route()).isNull();
        assertThat(workers.declared()).isTrue();
        assertThat(workers.allow()).isEqualTo("GET, POST");
        assertThat(mixed.allow()).isEqualTo("GET, DELETE");
        assertThat(mixed.access()).isEqualTo(Kind.ADMIN);
        assertThat(TABLE.match(HttpMethod.GET, "/mixed").access()).isEqualTo(Kind.PUBLIC);
    }

    @Test
    void anUndeclaredPathMatchesNothingAndSharesOneLabel() {
        for (String path : List.of("/", "/workersx", "/workers/", "/v1/models/", "/v1/model", "/WORKERS")) {
            RouteMatch match = TABLE.match(HttpMethod.GET, path);
            assertThat(match.declared()).as(path).isFalse();
            assertThat(match.metricLabel()).isEqualTo(RouteMatch.UNDECLARED_LABEL);
        }
    }

    @Test
    void aRouteIsDeclaredOnce() {
        assertThatThrownBy(() -> new Routes(List.of(route(HttpMethod.GET, "/a", Kind.PUBLIC),
                route(HttpMethod.GET, "/a", Kind.ADMIN)))).hasMessageContaining("two routes for GET /a");
    }

    @Test
    void aPatternHasOneParameterAtItsEnd() {
        assertThatThrownBy(() -> route(HttpMethod.GET, "/a/{x}/b", Kind.PUBLIC))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> route(HttpMethod.GET, "/a{x}", Kind.PUBLIC))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> route(HttpMethod.GET, "a", Kind.PUBLIC)).isInstanceOf(IllegalArgumentException.class);
    }
}
