package dev.homing.core.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RoutingRequestTest {

    @Test
    void anEmptyHeaderCountsAsAbsent() {
        RoutingRequest request = new RoutingRequest("hi", "", "", "");
        assertThat(request.routingKey()).isNull();
        assertThat(request.targetWorker()).isNull();
        assertThat(request.implicitKey()).isNull();
    }

    @Test
    void aHeaderWithAValueIsKeptAsItIs() {
        RoutingRequest request = new RoutingRequest("hi", "session-1", "2", "Bearer x");
        assertThat(request).isEqualTo(new RoutingRequest("hi", "session-1", "2", "Bearer x"));
        assertThat(request.routingKey()).isEqualTo("session-1");
        assertThat(request.targetWorker()).isEqualTo("2");
        assertThat(request.implicitKey()).isEqualTo("Bearer x");
    }

    @Test
    void aMissingTextIsTheEmptyText() {
        assertThat(new RoutingRequest(null, null, null, null).text()).isEmpty();
    }

    @Test
    void theImplicitKeyIsTheFirstNonEmptyOfAuthorizationForwardedForAndCookie() {
        assertThat(RoutingRequest.implicitKey("Bearer x", "10.0.0.1", "id=7")).isEqualTo("Bearer x");
        assertThat(RoutingRequest.implicitKey(null, "10.0.0.1", "id=7")).isEqualTo("10.0.0.1");
        assertThat(RoutingRequest.implicitKey("", "10.0.0.1", "id=7")).as("an empty authorization hides nothing")
                .isEqualTo("10.0.0.1");
        assertThat(RoutingRequest.implicitKey("", "", "id=7")).isEqualTo("id=7");
        assertThat(RoutingRequest.implicitKey(null, null, "id=7")).isEqualTo("id=7");
    }

    @Test
    void thereIsNoImplicitKeyWhenEveryHeaderIsMissingOrEmpty() {
        assertThat(RoutingRequest.implicitKey(null, null, null)).isNull();
        assertThat(RoutingRequest.implicitKey("", "", "")).isNull();
    }
}
