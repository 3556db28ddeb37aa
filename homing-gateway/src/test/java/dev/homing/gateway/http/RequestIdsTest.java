package dev.homing.gateway.http;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.LogCapture;
import dev.homing.gateway.testing.OneWorkerGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A client's request id is echoed, forwarded and logged only when it is a plausible id; else one is generated. */
class RequestIdsTest {

    @RegisterExtension
    static final OneWorkerGateway setup = new OneWorkerGateway("m", config -> config.with(Settings.POLICY,
            "round_robin"));

    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    private static final Pattern GENERATED = Pattern.compile("chatcmpl-[A-Za-z0-9]{24}");

    private LogCapture accessLog;

    @BeforeEach
    void capture() {
        accessLog = LogCapture.infoOf("dev.homing.gateway.access");
    }

    @AfterEach
    void release() {
        accessLog.close();
    }

    @Test
    void anInvalidUtf8RequestIdIsReplacedByAGeneratedOneInTheAnswerTheWorkerAndTheLog() throws IOException {
        // 0xC3 starts a two-byte sequence; '(' cannot continue it.
        String answer = chatWithRequestId(new byte[] {'b', 'a', 'd', (byte) 0xC3, '(', '1'});

        String echoed = headerOf(answer, "x-request-id");
        assertThat(echoed).matches(GENERATED);
        assertThat(setup.worker().received().getFirst().headers().get("x-request-id")).isEqualTo(echoed);
        await().atMost(Duration.ofSeconds(30)).until(() -> accessLog.messages().stream()
                .anyMatch(line -> line.contains("request_id=" + echoed + " ")));
        assertThat(accessLog.messages()).noneMatch(line -> line.contains("bad"));
    }

    @Test
    void aRequestIdWithAControlCharacterIsReplaced() throws IOException {
        // U+0085 (next line) in UTF-8: the decoder refuses the ASCII controls itself, not this one.
        String answer = chatWithRequestId(new byte[] {'i', 'd', (byte) 0xC2, (byte) 0x85, '2'});

        assertThat(headerOf(answer, "x-request-id")).matches(GENERATED);
    }

    @Test
    void anAbsurdlyLongRequestIdIsReplaced() throws IOException {
        String answer = chatWithRequestId("a".repeat(RequestIds.MAX_ID_BYTES + 1)
                .getBytes(StandardCharsets.US_ASCII));

        assertThat(headerOf(answer, "x-request-id")).matches(GENERATED);
    }

    @Test
    void aValidUtf8RequestIdComesBackAsTheVeryBytesSent() throws IOException {
        byte[] id = "réq-✓-1".getBytes(StandardCharsets.UTF_8);

        String answer = chatWithRequestId(id);

        // Read one character per byte: the same characters mean the same bytes.
        assertThat(headerOf(answer, "x-request-id")).isEqualTo(new String(id, StandardCharsets.ISO_8859_1));
    }

    @Test
    void onlyVisibleCharactersAndInnerSpacesMakeAnId() {
        assertThat(RequestIds.usable("3f2b-9c1e_trace:0/1")).isTrue();
        assertThat(RequestIds.usable("order 42")).isTrue();
        assertThat(RequestIds.usable("tab\there")).isFalse();
        assertThat(RequestIds.usable(latin1("right-to-left \u202e override"))).isFalse();
        assertThat(RequestIds.usable(latin1("zero\u200bwidth"))).isFalse();
        assertThat(RequestIds.usable(latin1("c1\u0085control"))).isFalse();
        assertThat(RequestIds.usable(latin1("ok-\u00e9\u4e16"))).isTrue();
        assertThat(RequestIds.usable("\u00c3(")).isFalse();
        assertThat(RequestIds.usable("")).isFalse();
    }

    /** A string as the decoder hands it over: one character per UTF-8 byte. */
    private static String latin1(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** A chat request on a raw socket, its {@code x-request-id} the given bytes; the whole answer, byte a char. */
    private static String chatWithRequestId(byte[] id) throws IOException {
        setup.worker().clear();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", setup.gateway().gateway().port()), 5_000);
            socket.setSoTimeout(10_000);
            byte[] body = CHAT.getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes(("POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n"
                    + "content-type: application/json\r\ncontent-length: " + body.length + "\r\nx-request-id: ")
                    .getBytes(StandardCharsets.ISO_8859_1));
            head.writeBytes(id);
            head.writeBytes("\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            OutputStream out = socket.getOutputStream();
            out.write(head.toByteArray());
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200 ");
            return answer;
        }
    }

    private static String headerOf(String answer, String name) {
        Matcher header = Pattern.compile("(?i)\r\n" + name + ": ([^\r]*)\r\n").matcher(answer);
        assertThat(header.find()).as("%s in %s", name, answer).isTrue();
        return header.group(1);
    }
}
