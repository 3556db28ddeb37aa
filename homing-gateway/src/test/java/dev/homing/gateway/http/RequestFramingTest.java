package dev.homing.gateway.http;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The framing rules on request heads as the decoder hands them over; the corpus replays them over sockets. */
class RequestFramingTest {

    private static MultiMap head(String... nameValues) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        for (int i = 0; i < nameValues.length; i += 2) {
            headers.add(nameValues[i], nameValues[i + 1]);
        }
        return headers;
    }

    private static ApiError problem(String... nameValues) {
        return RequestFraming.problem(HttpVersion.HTTP_1_1, head(nameValues));
    }

    @Test
    void aPlainRequestWithOneHostPasses() {
        assertThat(problem("host", "gateway.internal:8080")).isNull();
        assertThat(problem("host", "127.0.0.1", "transfer-encoding", "chunked")).isNull();
        assertThat(problem("host", "[::1]:30000", "transfer-encoding", "Chunked")).isNull();
    }

    @Test
    void codingsAreCaseInsensitiveAndEmptyListElementsAreIgnored() {
        assertThat(problem("host", "a", "transfer-encoding", ",, CHUNKED")).isNull();
    }

    @Test
    void chunkedThatIsNotLastOrComesTwiceIsAFramingError() {
        assertThat(problem("host", "a", "transfer-encoding", "chunked, gzip").status()).isEqualTo(400);
        assertThat(problem("host", "a", "transfer-encoding", "chunked", "transfer-encoding", "chunked").status())
                .isEqualTo(400);
        assertThat(problem("host", "a", "transfer-encoding", "gzip").status()).isEqualTo(400);
        assertThat(problem("host", "a", "transfer-encoding", "").status()).isEqualTo(400);
    }

    @Test
    void aCodingBeforeChunkedIsNotImplemented() {
        ApiError error = problem("host", "a", "transfer-encoding", "gzip, chunked");

        assertThat(error.status()).isEqualTo(501);
        assertThat(error.code()).isEqualTo("unsupported_transfer_encoding");
    }

    @ParameterizedTest
    @ValueSource(strings = {" chunked", "chunked ", "gzip chunked", "chunked;foo=bar", "chunked\"x\""})
    void aValueThatIsNotAListOfTokensIsRefused(String value) {
        assertThat(problem("host", "a", "transfer-encoding", value).status()).isEqualTo(400);
    }

    @Test
    void transferEncodingInHttp10IsFaultyFraming() {
        assertThat(RequestFraming.problem(HttpVersion.HTTP_1_0, head("transfer-encoding", "chunked")).status())
                .isEqualTo(400);
    }

    @Test
    void http11NeedsExactlyOneHostAndHttp10MayOmitIt() {
        assertThat(problem().status()).isEqualTo(400);
        assertThat(problem("host", "a", "host", "b").status()).isEqualTo(400);
        assertThat(RequestFraming.problem(HttpVersion.HTTP_1_0, head())).isNull();
        assertThat(RequestFraming.problem(HttpVersion.HTTP_1_0, head("host", "a", "host", "a")).status())
                .isEqualTo(400);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a, b", "a b", "a:80:90", "a:x", "[::1", "user@a", "a/b"})
    void aHostThatIsNotAHostAndPortIsRefused(String host) {
        assertThat(RequestFraming.isHostAndPort(host)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a", "a.example:443", "10.0.0.7:30000", "[fd00::7]:8000", "xn--bcher-kva.example"})
    void hostsAndPortsPass(String host) {
        assertThat(RequestFraming.isHostAndPort(host)).isTrue();
    }

    @Test
    void http2IsLeftToItsOwnFraming() {
        assertThat(RequestFraming.problem(HttpVersion.HTTP_2, head())).isNull();
    }
}
