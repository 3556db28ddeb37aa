package dev.homing.gateway.security;

import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway serves no WebSockets (its server leaves Vert.x's WebSocket extensions out): a client asking to upgrade,
 * compression offered, gets an ordinary HTTP answer, and its connection stays HTTP for the next request.
 */
class WebSocketUpgradeTest {

    @Test
    void anUpgradeRequestIsAnsweredAsHttpAndTheConnectionCarriesOnAsHttp() throws IOException {
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            String upgrade = "GET /v1/models HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: Upgrade\r\n"
                    + "upgrade: websocket\r\nsec-websocket-version: 13\r\n"
                    + "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "sec-websocket-extensions: permessage-deflate; client_max_window_bits, x-webkit-deflate-frame\r\n"
                    + "\r\n";
            String next = "GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n";

            RawHttp.Conversation conversation = RawHttp.sendRaw(gateway.gateway().port(),
                    (upgrade + next).getBytes(StandardCharsets.ISO_8859_1));

            assertThat(conversation.first().status()).isEqualTo(200);
            assertThat(conversation.first().headers()).doesNotContainKeys("upgrade", "sec-websocket-accept",
                    "sec-websocket-extensions");
            assertThat(conversation.first().text()).contains("\"object\"");
            assertThat(new String(conversation.after(), StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200");
            assertThat(conversation.closed()).isTrue();
        }
    }
}
