package dev.homing.gateway.workers;

import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class UpstreamTargetTest {

    /** The parsed target must address exactly what the absolute URL it replaces did. */
    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1:30000", "http://engine-3.local:8000", "http://localhost",
        "https://secure.example:8443", "https://secure.example", "http://[::1]:30001", "http://host:1/"})
    void addressesWhatTheAbsoluteUrlDid(String url) {
        RequestOptions parsed = UpstreamTarget.of(url, null).request(HttpMethod.POST, "/v1/chat/completions");
        RequestOptions absolute = new RequestOptions().setMethod(HttpMethod.POST)
                .setAbsoluteURI(url + "/v1/chat/completions");

        assertThat(parsed.getHost()).isEqualTo(absolute.getHost());
        assertThat(parsed.getPort()).isEqualTo(absolute.getPort());
        assertThat(parsed.isSsl()).isEqualTo(absolute.isSsl());
        assertThat(parsed.getURI()).isEqualTo(absolute.getURI());
        assertThat(parsed.getMethod()).isEqualTo(HttpMethod.POST);
    }

    @Test
    void aWorkerWithoutBasePathGetsThePathItself() {
        String path = "/generate";

        assertThat(UpstreamTarget.of("http://127.0.0.1:1", null).uri(path)).isSameAs(path);
    }

    @Test
    void theWorkersKeyBecomesABearerHeaderValueOnce() {
        assertThat(UpstreamTarget.of("http://127.0.0.1:1", "k-1").authorization()).isEqualTo("Bearer k-1");
        assertThat(UpstreamTarget.of("http://127.0.0.1:1", null).authorization()).isNull();
    }

    @Test
    void aTargetAtAnAddressConnectsThereAndKeepsTheNameForTheHostHeader() throws UnknownHostException {
        UpstreamTarget named = UpstreamTarget.of("http://engine-3.internal:8000", "k");
        InetAddress checked = InetAddress.getByAddress("engine-3.internal", new byte[] {10, 0, 0, 7});

        UpstreamTarget fixed = named.at(checked);
        RequestOptions options = fixed.request(HttpMethod.GET, "/health");

        assertThat(named.needsAddress()).isTrue();
        assertThat(fixed.needsAddress()).isFalse();
        assertThat(options.getServer()).isEqualTo(SocketAddress.inetSocketAddress(8000, "10.0.0.7"));
        assertThat(options.getHost()).isEqualTo("engine-3.internal");
        assertThat(options.getPort()).isEqualTo(8000);
        assertThat(fixed.authorization()).isEqualTo("Bearer k");
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1:30000", "http://[::1]:30001"})
    void aUrlWithAnAddressNeedsNoLookup(String url) {
        assertThat(UpstreamTarget.of(url, null).needsAddress()).isFalse();
    }

    @Test
    void aUrlThatIsNotHttpIsRefused() {
        assertThatThrownBy(() -> UpstreamTarget.of("grpc://127.0.0.1:1", null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> UpstreamTarget.of("not a url", null)).isInstanceOf(IllegalArgumentException.class);
    }
}
