package dev.homing.gateway.proxy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class InferenceRouteTest {

    /** The prefixes the reference gives its request ids, which clients and logs already know. */
    @ParameterizedTest
    @CsvSource({
            "/generate, gnt-",
            "/v1/chat/completions, chatcmpl-",
            "/v1/completions, cmpl-",
            "/v1/embeddings, req-",
            "/v1/rerank, req-",
            "/rerank, req-",
            "/v1/classify, req-",
            "/v1/responses, resp-"})
    void eachRouteNamesItsRequestsAsTheReferenceDoes(String path, String prefix) {
        assertThat(InferenceRoute.of(path).requestIdPrefix()).isEqualTo(prefix);
    }
}
