package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OtlpEndpointTest {

    @Test
    void hostAndPortAsTheReferenceWritesThemPostToTheTracesPath() {
        assertThat(OtlpEndpoint.url("localhost:4318")).hasToString("http://localhost:4318/v1/traces");
        assertThat(OtlpEndpoint.url("[::1]:4318")).hasToString("http://[::1]:4318/v1/traces");
        assertThat(OtlpEndpoint.url(OtlpEndpoint.DEFAULT)).hasToString("http://localhost:4318/v1/traces");
    }

    @Test
    void aUrlWithoutAPathGetsTheTracesPathAndOneWithAPathIsKept() {
        assertThat(OtlpEndpoint.url("https://collector.example:443"))
                .hasToString("https://collector.example:443/v1/traces");
        assertThat(OtlpEndpoint.url("http://collector/")).hasToString("http://collector/v1/traces");
        assertThat(OtlpEndpoint.url("http://collector:4318/otlp/v1/traces"))
                .hasToString("http://collector:4318/otlp/v1/traces");
    }

    @Test
    void anythingElseIsRefusedNamingTheFlag() {
        for (String bad : new String[] {"localhost", "grpc://collector:4317", "collector:4318/v1/traces", "not a url",
            "http://user@collector:4318",
            "localhost:70000", "localhost:0x10"}) {
            assertThat(OtlpEndpoint.problem(bad)).as(bad).isNotNull();
        }
        Config config = Config.defaults(Scope.GATEWAY).with(Settings.OTLP_TRACES_ENDPOINT, "grpc://collector:4317");

        assertThat(config.problems()).containsExactly("--otlp-traces-endpoint must be host:port or an http:// or "
                + "https:// URL, got 'grpc://collector:4317'");
    }
}
