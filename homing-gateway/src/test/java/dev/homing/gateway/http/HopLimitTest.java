package dev.homing.gateway.http;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HopLimitTest {

    private static MultiMap hops(String value) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        return value == null ? headers : headers.add("X-Homing-Hops", value);
    }

    @Test
    void aRequestFromAClientHasPassedNoGatewayAndGoesOnWithOne() {
        assertThat(HopLimit.refusal(hops(null))).isNull();
        assertThat(HopLimit.next(hops(null))).isEqualTo("1");
    }

    @Test
    void upToThreeGatewaysPassedTheRequestGoesOnCountingThisOne() {
        assertThat(HopLimit.refusal(hops("3"))).isNull();
        assertThat(HopLimit.next(hops(" 3 "))).isEqualTo("4");
    }

    @Test
    void fourGatewaysPassedIsALoop() {
        ApiError refusal = HopLimit.refusal(hops("4"));

        assertThat(refusal.status()).isEqualTo(508);
        assertThat(refusal.code()).isEqualTo("loop_detected");
        assertThat(HopLimit.refusal(hops("999999999")).status()).isEqualTo(508);
    }

    @Test
    void aCountThatIsNoNumberIsABadRequest() {
        for (String bad : new String[] {"", "-1", "two", "1.5", "12345678901"}) {
            assertThat(HopLimit.refusal(hops(bad)).status()).as(bad).isEqualTo(400);
        }
    }
}
