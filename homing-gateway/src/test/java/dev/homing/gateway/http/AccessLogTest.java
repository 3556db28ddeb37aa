package dev.homing.gateway.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The access log's text line keeps each value in its own field, whatever a client sends. */
class AccessLogTest {

    private final Logger access = (Logger) LoggerFactory.getLogger("dev.homing.gateway.access");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        access.addAppender(lines);
        access.setAdditive(false);
        access.setLevel(Level.INFO);
    }

    @AfterEach
    void release() {
        access.detachAppender(lines);
        access.setAdditive(true);
        access.setLevel(null);
    }

    @Test
    void aRequestIdThatLooksLikeMoreFieldsStaysOneQuotedField() {
        String forged = "x status=200 worker=http://evil \"quoted\"";
        String workerUrl;
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(List.of(worker), "round_robin")) {
            workerUrl = worker.url();
            gateway.post("/v1/chat/completions", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                    "x-request-id", forged);

            await().atMost(Duration.ofSeconds(30)).until(() -> lines.list.stream()
                    .anyMatch(e -> e.getFormattedMessage().contains("route=/v1/chat/completions")));
        }
        String line = lines.list.stream().map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains("route=/v1/chat/completions")).findFirst().orElseThrow();
        Map<String, String> fields = new LinkedHashMap<>();
        List<String> keys = new ArrayList<>();
        parse(line, fields, keys);

        assertThat(keys).as("every key once, in %s", line).doesNotHaveDuplicates()
                .contains("request_id", "status", "worker");
        assertThat(fields.get("request_id")).isEqualTo(forged);
        assertThat(fields.get("status")).isEqualTo("200");
        assertThat(fields.get("worker")).isEqualTo(workerUrl);
    }

    @Test
    void bareValuesStayBareAndOthersAreQuotedWithEscapes() {
        assertThat(RequestRecord.field("chatcmpl-abc123")).isEqualTo("chatcmpl-abc123");
        assertThat(RequestRecord.field("http://127.0.0.1:30000")).isEqualTo("http://127.0.0.1:30000");
        assertThat(RequestRecord.field("a b")).isEqualTo("\"a b\"");
        assertThat(RequestRecord.field("k=v")).isEqualTo("\"k=v\"");
        assertThat(RequestRecord.field("say \"hi\"\\")).isEqualTo("\"say \\\"hi\\\"\\\\\"");
        assertThat(RequestRecord.field("line\nbreak\u2028")).isEqualTo("\"line\\u000abreak\\u2028\"");
        assertThat(RequestRecord.field("")).isEqualTo("\"\"");
    }

    /** A strict reading of key=value pairs separated by single spaces, values bare or quoted with escapes. */
    private static void parse(String line, Map<String, String> fields, List<String> keys) {
        int i = 0;
        while (i < line.length()) {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq);
            assertThat(key).as("a key in %s", line).matches("[a-z_]+");
            int j = eq + 1;
            StringBuilder value = new StringBuilder();
            if (j < line.length() && line.charAt(j) == '"') {
                j++;
                while (line.charAt(j) != '"') {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(j + 1);
                        if (next == 'u') {
                            value.append((char) Integer.parseInt(line.substring(j + 2, j + 6), 16));
                            j += 6;
                        } else {
                            value.append(next);
                            j += 2;
                        }
                    } else {
                        value.append(c);
                        j++;
                    }
                }
                j++;
            } else {
                while (j < line.length() && line.charAt(j) != ' ') {
                    value.append(line.charAt(j++));
                }
            }
            keys.add(key);
            fields.put(key, value.toString());
            i = j + 1;
        }
    }
}
