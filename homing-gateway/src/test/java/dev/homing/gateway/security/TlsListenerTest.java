package dev.homing.gateway.security;

import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.TestTls;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParameterException;

import javax.net.ssl.SSLSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The data-plane listener over TLS with the test certificate in {@code tls/} (CN=localhost, IP 127.0.0.1): a client
 * that trusts it gets real answers through the gateway, a plain-HTTP client gets none, the metrics port stays plain,
 * and a half or mistaken TLS configuration stops the start with a message naming the flag.
 */
class TlsListenerTest {

    private static final String CHAT = "{\"model\":\"model-a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @RegisterExtension
    static final FakeWorker worker = FakeWorker.start("model-a");
    private static Gateway gateway;
    private static HttpClient trusting;

    @BeforeAll
    static void start() throws Exception {
        gateway = Gateway.start(new GatewayConfig(RunningGateway.config(List.of(worker))
                .with(Settings.TLS_CERT_PATH, TestTls.file("cert.pem")).with(Settings.TLS_KEY_PATH, TestTls.file("key.pem"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> gateway.registry().healthyCount() == 1);
        trusting = HttpClient.newBuilder().sslContext(TestTls.trustingTheTestCertificate())
                .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() {
        trusting.close();
        gateway.close();
    }

    @Test
    void aClientTrustingTheCertificateGetsAnAnswerFromTheWorkerOverHttps() throws Exception {
        HttpResponse<String> response = trusting.send(HttpRequest.newBuilder(
                        URI.create("https://127.0.0.1:" + gateway.port() + "/v1/chat/completions"))
                .timeout(Duration.ofSeconds(10)).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(CHAT)).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("chat.completion");
        assertThat(worker.received()).isNotEmpty();
    }

    @Test
    void aPlainHttpClientGetsNoHttpAnswerFromTheTlsPort() throws Exception {
        worker.clear();

        RawHttp.Response response = RawHttp.exchange(gateway.port(), "POST", "/v1/chat/completions",
                Map.of("content-type", "application/json"), CHAT.getBytes(), false);

        assertThat(response.status()).as("an HTTP status line in %s", response.text()).isZero();
        assertThat(worker.received()).isEmpty();
    }

    @Test
    void theMetricsPortStaysPlainHttp() throws Exception {
        try (HttpClient plain = HttpClient.newHttpClient()) {
            HttpResponse<String> metrics = plain.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + gateway.metricsPort() + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(metrics.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aHeadThatStopsHalfWayOverTlsGets408() throws Exception {
        try (Gateway strict = Gateway.start(new GatewayConfig(RunningGateway.config(List.of())
                .with(Settings.TLS_CERT_PATH, TestTls.file("cert.pem")).with(Settings.TLS_KEY_PATH, TestTls.file("key.pem"))
                .with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L)));
             SSLSocket socket = (SSLSocket) TestTls.trustingTheTestCertificate().getSocketFactory()
                     .createSocket("127.0.0.1", strict.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write("GET /health HTTP/1.1\r\nhost: 127".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();

            RawHttp.Response response = RawHttp.read(socket.getInputStream());

            assertThat(response.status()).as("answer %s", response.text()).isEqualTo(408);
            assertThat(response.headers().get("x-smg-error-code")).isEqualTo("client_header_timeout");
        }
    }

    @Test
    void overTlsARequestWithContentLengthAndChunkedIsRefusedAndNothingBehindItIsAnswered() throws Exception {
        worker.clear();
        byte[] body = CHAT.getBytes(StandardCharsets.US_ASCII);
        String smuggling = "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                + "content-length: " + body.length + "\r\ntransfer-encoding: chunked\r\n\r\n"
                + Integer.toHexString(body.length) + "\r\n" + CHAT + "\r\n0\r\n\r\n"
                + "GET /workers HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
        try (SSLSocket socket = (SSLSocket) TestTls.trustingTheTestCertificate().getSocketFactory()
                .createSocket("127.0.0.1", gateway.port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(smuggling.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();

            String received = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(received).startsWith("HTTP/1.1 400 ").contains("connection: close");
            assertThat(received.indexOf("HTTP/1.1", 1)).as("a second answer in %s", received).isNegative();
        }
        assertThat(worker.received()).isEmpty();
    }

    @Test
    void aCertificateWithoutItsKeyIsRefusedAtStart() throws Exception {
        assertThatThrownBy(() -> LaunchCommand.parse("--tls-cert-path", TestTls.file("cert.pem")))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--tls-key-path");
    }

    @Test
    void aMissingOrMistakenFileIsRefusedNamingItsFlag(@TempDir Path dir) throws Exception {
        Path notPem = Files.writeString(dir.resolve("key.txt"), "not a key");

        assertThatThrownBy(() -> LaunchCommand.parse("--tls-cert-path", dir.resolve("absent.pem").toString(),
                "--tls-key-path", TestTls.file("key.pem")))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--tls-cert-path: cannot read");
        assertThatThrownBy(() -> LaunchCommand.parse("--tls-cert-path", TestTls.file("cert.pem"),
                "--tls-key-path", notPem.toString()))
                .isInstanceOf(ParameterException.class).hasMessageContaining("--tls-key-path")
                .hasMessageContaining("no PEM private key");
        // The key where the certificate belongs: each file holds the wrong kind of block.
        assertThatThrownBy(() -> LaunchCommand.parse("--tls-cert-path", TestTls.file("key.pem"),
                "--tls-key-path", TestTls.file("cert.pem")))
                .isInstanceOf(ParameterException.class).hasMessageContaining("no PEM certificate");
    }

    @Test
    void theYamlFileTakesTheTlsKeysToo(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("homing.yaml"), "tls_cert_path: " + TestTls.file("cert.pem")
                + "\ntls-key-path: " + TestTls.file("key.pem") + "\nclient_header_timeout_secs: 5\n");

        GatewayConfig config = LaunchCommand.parse("--config", yaml.toString());

        assertThat(config.tls()).isTrue();
        assertThat(config.get(Settings.TLS_KEY_PATH)).isEqualTo(TestTls.file("key.pem"));
        assertThat(config.get(Settings.CLIENT_HEADER_TIMEOUT_SECS)).isEqualTo(5L);
    }
}
