package dev.homing.gateway.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import org.slf4j.event.KeyValuePair;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * {@code --log-json}: one JSON object a line, flat, as log shippers index it: {@code time} (ISO-8601, UTC),
 * {@code level}, {@code logger}, {@code thread}, {@code message}, then each of the event's key-value pairs as a field
 * of its own (the access log's {@code request_id}, {@code route}, {@code status}...; a number stays a number), then
 * {@code stack_trace} when there is one. Logback's own JSON encoder nests the pairs in a list of one-field objects and
 * writes every value as a string.
 *
 * <p>Invariant: a line is one JSON object with each name once, and ends at the one newline after it. Every value is
 * written by Jackson's generator, which escapes quotes, backslashes and control characters, so a value a client chose
 * (a request id, a model name) cannot end its field, add one or start a line; a pair named as a fixed field is written
 * with a leading underscore. Thread-safe: each line has a generator of its own.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {

    private static final Set<String> FIXED = Set.of("time", "level", "logger", "thread", "message", "stack_trace");
    /** URLs stay readable: a slash needs no escape in JSON. */
    private static final JsonFactory JSON = JsonFactory.builder().disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .build();

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        ByteArrayOutputStream line = new ByteArrayOutputStream(512);
        try (JsonGenerator json = JSON.createGenerator(line)) {
            json.writeStartObject();
            json.writeStringProperty("time", Instant.ofEpochMilli(event.getTimeStamp()).toString());
            json.writeStringProperty("level", event.getLevel().toString());
            json.writeStringProperty("logger", event.getLoggerName());
            json.writeStringProperty("thread", event.getThreadName());
            json.writeStringProperty("message", event.getFormattedMessage());
            List<KeyValuePair> pairs = event.getKeyValuePairs();
            if (pairs != null) {
                for (KeyValuePair pair : pairs) {
                    json.writeName(FIXED.contains(pair.key) ? "_" + pair.key : pair.key);
                    writeValue(json, pair.value);
                }
            }
            IThrowableProxy thrown = event.getThrowableProxy();
            if (thrown != null) {
                json.writeStringProperty("stack_trace", ThrowableProxyUtil.asString(thrown));
            }
            json.writeEndObject();
        }
        line.write('\n');
        return line.toByteArray();
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }

    private static void writeValue(JsonGenerator json, Object value) {
        switch (value) {
            case null -> json.writeNull();
            case Integer n -> json.writeNumber(n);
            case Long n -> json.writeNumber(n);
            case Double n -> json.writeNumber(n);
            case Boolean b -> json.writeBoolean(b);
            default -> json.writeString(value.toString());
        }
    }
}
