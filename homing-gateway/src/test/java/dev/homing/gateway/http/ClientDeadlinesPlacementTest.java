package dev.homing.gateway.http;

import dev.homing.gateway.config.GatewayConfig;

import dev.homing.config.Settings;

import dev.homing.gateway.Gateway;
import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.TestTls;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ClientDeadlines} goes where Vert.x's HTTP server pipeline lets it, which no public Vert.x API describes (see
 * its class comment). These examples pin that: on plain HTTP and over TLS a real gateway must put the deadlines in
 * place without an error, and a pipeline laid out otherwise must be reported, not served silently without them.
 */
class ClientDeadlinesPlacementTest {

    private static final String HALF_A_HEAD = "GET /health HTTP/1.1\r\nhost: 127";

    private final LogCapture log = LogCapture.errorsOf(ClientDeadlines.class);

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    @Test
    void theDeadlinesFindTheirPlaceInVertxsPlainHttpPipeline() throws Exception {
        try (Gateway gateway = Gateway.start(new GatewayConfig(RunningGateway.config(List.of())
                .with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L)))) {
            assertTheHeadTimesOut(new Socket("127.0.0.1", gateway.port()));
        }
    }

    @Test
    void theDeadlinesFindTheirPlaceInVertxsTlsPipeline() throws Exception {
        try (Gateway gateway = Gateway.start(new GatewayConfig(RunningGateway.config(List.of())
                .with(Settings.TLS_CERT_PATH, TestTls.file("cert.pem")).with(Settings.TLS_KEY_PATH, TestTls.file("key.pem"))
                .with(Settings.CLIENT_HEADER_TIMEOUT_SECS, 1L)))) {
            assertTheHeadTimesOut(TestTls.trustingTheTestCertificate().getSocketFactory()
                    .createSocket("127.0.0.1", gateway.port()));
        }
    }

    @Test
    void aPipelineWithoutTheHandlersTheDeadlinesFollowIsReportedAsAnError() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel(false, false);
        channel.pipeline().addLast(new ClientDeadlines.FirstBytes(deadlines()), new ChannelInboundHandlerAdapter());
        channel.register();

        assertThat(log.errors()).singleElement().asString()
                .contains("found neither a ChunkedWriteHandler nor an IdleStateHandler").contains("timeouts are off");
        assertThat(channel.pipeline().get(ClientDeadlines.class)).isNull();
        channel.finishAndReleaseAll();
    }

    @Test
    void aDecoderBehindTheDeadlinesIsReportedAsAnError() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel(false, false);
        channel.pipeline().addLast(new ClientDeadlines.FirstBytes(deadlines()), new IdleStateHandler(0, 0, 60),
                new HttpRequestDecoder(), new ChannelInboundHandlerAdapter());
        channel.register();
        assertThat(log.errors()).as("placed after the idle handler").isEmpty();

        channel.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));

        assertThat(log.errors()).singleElement().asString().contains("is in front of Vert.x's HTTP decoder");
        channel.finishAndReleaseAll();
    }

    /** A half-sent head must get the 408 only the deadlines give, and the placement must have logged nothing. */
    private void assertTheHeadTimesOut(Socket socket) throws IOException {
        try (socket) {
            socket.setSoTimeout(15_000);
            socket.getOutputStream().write(HALF_A_HEAD.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            String answer = readUntilClosed(socket.getInputStream());

            assertThat(log.errors()).as("ClientDeadlines could not find its place in Vert.x's pipeline").isEmpty();
            assertThat(answer).as("the deadlines are not in place: no 408 for a head that never ends")
                    .startsWith("HTTP/1.1 408").contains("client_header_timeout");
        }
    }

    private static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                read.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException noAnswer) {
            // What came so far is the answer: none, when the deadlines are not there to give one.
        }
        return read.toString(StandardCharsets.UTF_8);
    }

    private static ClientDeadlines deadlines() {
        return new ClientDeadlines(ClientDeadlines.Settings.ofSeconds(10, 30, 75), new EdgeRefusals(),
                new ClientDeadlines.Placement());
    }
}
