package dev.homing.gateway.proxy;

import dev.homing.core.request.RequestKind;
import dev.homing.core.request.RoutingTextBuilder;
import dev.homing.core.request.RoutingTextBuilder.FieldText;
import io.vertx.core.buffer.Buffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.util.JsonRecyclerPools;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;

/**
 * Reads a request body once with a streaming parser (no tree is built) and returns the fields routing needs: the
 * model, the stream flag, and the routing text, fed field by field to the core's rule for the route's kind of
 * request ({@link RoutingTextBuilder}; each kind's rule is written at {@link RequestKind}). Here lives only which
 * JSON field carries what, and what shape it must have.
 *
 * <p>The whole document is parsed, so malformed JSON is refused here and never reaches a worker. Fields the gateway
 * reads must have the right JSON type; all other fields are skipped unread. Stateless and thread-safe.
 *
 * <p>Memory: the routing text is a prefix ({@link RoutingTextBuilder#MAX_CHARS}), and a string value is decoded
 * only as far as the text has room for it; the rest of it is skipped by the parser, never decoded or copied. Any
 * other string the gateway reads (the model, a role) longer than that prefix is refused with 400.
 */
public final class RoutingText {

    /**
     * The parser's buffers come from a pool per thread: requests are sniffed on the event loops, a few threads that
     * live as long as the gateway, where Jackson's default pool (one shared deque, for virtual threads) cost a
     * concurrent poll and offer each request.
     */
    private static final JsonMapper JSON = JsonMapper.builder(JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.threadLocalPool())
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(RoutingTextBuilder.MAX_CHARS).build())
            .build()).build();

    private RoutingText() {
    }

    /**
     * Sniffs a request body where it lies in memory: the buffer's bytes are parsed in place, not copied, and the
     * same buffer is what goes to the worker.
     *
     * @throws BadRequestException as {@link #sniff(InferenceRoute, ByteSlice)}
     */
    public static SniffedRequest sniff(InferenceRoute route, Buffer body) throws BadRequestException {
        return sniff(route, ByteSlice.of(body));
    }

    /** @throws BadRequestException as {@link #sniff(InferenceRoute, ByteSlice)} */
    public static SniffedRequest sniff(InferenceRoute route, byte[] body) throws BadRequestException {
        return sniff(route, ByteSlice.of(body));
    }

    /**
     * @throws BadRequestException for malformed JSON, a body that is not an object, a read field of the wrong type,
     *                             or a missing field the endpoint cannot work without (so it never reaches a worker)
     */
    public static SniffedRequest sniff(InferenceRoute route, ByteSlice body) throws BadRequestException {
        requireUtf8Object(body.array(), body.offset(), body.offset() + body.length());
        try (JsonParser p = JSON.createParser(body.array(), body.offset(), body.length())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new BadRequestException("request body must be a JSON object");
            }
            Fields f = new Fields(body, route.kind());
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                p.nextToken();
                readField(route, name, p, f);
            }
            if (p.nextToken() != null) {
                throw new BadRequestException("unexpected content after the JSON object");
            }
            if (!f.hasRequired) {
                throw new BadRequestException(requiredFieldMessage(route));
            }
            return new SniffedRequest(f.model, f.stream, f.routingText.build());
        } catch (StreamConstraintsException e) {
            throw new BadRequestException("a JSON value is beyond the gateway's limits: " + e.getOriginalMessage());
        } catch (JacksonException e) {
            throw new BadRequestException("malformed JSON: " + e.getOriginalMessage());
        }
    }

    /**
     * Refuses a body whose first byte, after an optional UTF-8 byte-order mark and JSON blanks, is not '{', or whose
     * next byte is NUL (UTF-16LE or UTF-32LE without a mark; UTF-8 JSON never holds a raw NUL). JSON between systems
     * must be UTF-8 (RFC 8259 section 8.1), and the parser would otherwise detect UTF-16 or UTF-32 from the bytes and
     * accept a body the worker may read differently.
     */
    private static void requireUtf8Object(byte[] bytes, int from, int to) throws BadRequestException {
        int i = to - from >= 3 && bytes[from] == (byte) 0xEF && bytes[from + 1] == (byte) 0xBB
                && bytes[from + 2] == (byte) 0xBF ? from + 3 : from;
        while (i < to && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r')) {
            i++;
        }
        if (i == to || bytes[i] != '{' || (i + 1 < to && bytes[i + 1] == 0)) {
            throw new BadRequestException("request body must be a JSON object in UTF-8");
        }
    }

    /** Field values gathered during one parse; not thread-safe. */
    private static final class Fields {
        final ByteSlice body;
        final RoutingTextBuilder routingText;
        String model;
        boolean stream;
        /** The endpoint's required field was present (for chat: a non-empty messages array). */
        boolean hasRequired;

        Fields(ByteSlice body, RequestKind kind) {
            this.body = body;
            this.routingText = RoutingTextBuilder.of(kind);
        }
    }

    private static void readField(InferenceRoute route, String name, JsonParser p, Fields f) {
        switch (name) {
            case "model" -> f.model = optionalString(p, "model");
            case "stream" -> f.stream = optionalBoolean(p, "stream");
            default -> {
                FieldText text = f.routingText.text();
                boolean read = switch (route) {
                    case GENERATE -> readGenerate(name, p, f);
                    case CHAT -> readChat(name, p, f);
                    case COMPLETIONS -> name.equals("prompt") && appendTextOrIds(p, f.body, "prompt", text);
                    case RESPONSES -> readResponses(name, p, f);
                    case EMBEDDINGS, CLASSIFY -> name.equals("input") && appendTextOrIds(p, f.body, "input", text);
                    case RERANK, RERANK_LEGACY -> name.equals("query") && appendString(p, f.body, "query", text);
                };
                if (read) {
                    f.hasRequired |= isRequired(route, name, f);
                } else {
                    p.skipChildren();
                }
            }
        }
    }

    /** Whether {@code name}, just read, is what the endpoint cannot work without. */
    private static boolean isRequired(InferenceRoute route, String name, Fields f) {
        return switch (route) {
            case CHAT -> name.equals("messages") && !f.routingText.text().isEmpty();
            case GENERATE -> name.equals("text") || name.equals("input_ids");
            case COMPLETIONS -> name.equals("prompt");
            case EMBEDDINGS, CLASSIFY, RESPONSES -> name.equals("input");
            case RERANK, RERANK_LEGACY -> name.equals("query");
        };
    }

    private static String requiredFieldMessage(InferenceRoute route) {
        return switch (route) {
            case CHAT -> "'messages' is required and must hold at least one message";
            case GENERATE -> "one of 'text' or 'input_ids' is required";
            case COMPLETIONS -> "'prompt' is required";
            case EMBEDDINGS, CLASSIFY, RESPONSES -> "'input' is required";
            case RERANK, RERANK_LEGACY -> "'query' is required";
        };
    }

    private static boolean readGenerate(String name, JsonParser p, Fields f) {
        if (name.equals("text")) {
            return appendTextOrIds(p, f.body, "text", f.routingText.text());
        }
        if (name.equals("input_ids")) {
            return appendTextOrIds(p, f.body, "input_ids", f.routingText.inputIds());
        }
        return false;
    }

    private static boolean readChat(String name, JsonParser p, Fields f) {
        if (name.equals("tools")) {
            f.routingText.tools(rawJson(p, f.body, "tools"));
            return true;
        }
        if (!name.equals("messages")) {
            return false;
        }
        expect(p, JsonToken.START_ARRAY, "messages", "an array");
        while (p.nextToken() != JsonToken.END_ARRAY) {
            appendMessage(p, f.body, "messages[]", f.routingText);
        }
        return true;
    }

    private static boolean readResponses(String name, JsonParser p, Fields f) {
        FieldText text = f.routingText.text();
        if (name.equals("instructions")) {
            if (p.currentToken() != JsonToken.VALUE_NULL) {
                expect(p, JsonToken.VALUE_STRING, "instructions", "a string");
                f.routingText.instructions(prefix(p, f.body, RoutingTextBuilder.MAX_CHARS));
            }
            return true;
        }
        if (!name.equals("input")) {
            return false;
        }
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            text.append(prefix(p, f.body, text.room()));
        } else {
            expect(p, JsonToken.START_ARRAY, "input", "a string or an array");
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == JsonToken.VALUE_STRING) {
                    text.append(prefix(p, f.body, text.room()));
                } else {
                    appendMessage(p, f.body, "input[]", f.routingText);
                }
            }
        }
        return true;
    }

    /** Appends one message object (its role, its text parts and reasoning); the parser is on its START_OBJECT. */
    private static void appendMessage(JsonParser p, ByteSlice body, String what, RoutingTextBuilder out) {
        expect(p, JsonToken.START_OBJECT, what, "an object");
        String role = "";
        StringBuilder text = new StringBuilder();
        int room = out.text().room();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "role" -> {
                    String r = optionalString(p, what + ".role");
                    role = r == null ? "" : r;
                }
                case "content", "reasoning_content" -> appendContent(p, body, what + "." + name, text, room);
                default -> p.skipChildren();
            }
        }
        out.message(role, text);
    }

    /**
     * Message content: a string, null, or an array of parts whose {@code text} parts count, appended to {@code out}
     * as long as it is shorter than {@code room}.
     */
    private static void appendContent(JsonParser p, ByteSlice body, String what, StringBuilder out, int room) {
        switch (p.currentToken()) {
            case VALUE_STRING -> out.append(prefix(p, body, room - out.length()));
            case VALUE_NULL -> { }
            case START_ARRAY -> {
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        out.append(prefix(p, body, room - out.length()));
                        continue;
                    }
                    expect(p, JsonToken.START_OBJECT, what + "[]", "a string or an object");
                    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        if (name.equals("text") && p.currentToken() == JsonToken.VALUE_STRING) {
                            out.append(prefix(p, body, room - out.length()));
                        } else {
                            p.skipChildren();
                        }
                    }
                }
            }
            default -> throw new FieldTypeException(what + " must be a string, an array or null");
        }
    }

    /**
     * A string, or an array of strings joined with spaces, or token ids (an array of integers, or an array of such
     * arrays for a batch) as decimals joined with spaces. Null appends nothing.
     */
    private static boolean appendTextOrIds(JsonParser p, ByteSlice body, String what, FieldText out) {
        switch (p.currentToken()) {
            case VALUE_STRING -> out.append(prefix(p, body, out.room()));
            case VALUE_NULL -> { }
            case START_ARRAY -> appendArray(p, body, what, out);
            default -> throw new FieldTypeException(what + " must be a string or an array");
        }
        return true;
    }

    private static void appendArray(JsonParser p, ByteSlice body, String what, FieldText out) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
            switch (p.currentToken()) {
                case VALUE_STRING -> out.item(prefix(p, body, out.room()));
                case VALUE_NUMBER_INT -> out.item(p.getLongValue());
                case START_ARRAY -> appendArray(p, body, what, out);
                default -> throw new FieldTypeException(what + " must hold strings or integers");
            }
        }
    }

    private static boolean appendString(JsonParser p, ByteSlice body, String what, FieldText out) {
        if (p.currentToken() != JsonToken.VALUE_NULL) {
            expect(p, JsonToken.VALUE_STRING, what, "a string");
            out.append(prefix(p, body, out.room()));
        }
        return true;
    }

    /**
     * The current string value, or only its first {@code maxChars} characters when it is longer: its bytes are
     * counted off as characters (an escape is one, a UTF-8 sequence one, or two for a surrogate pair) up to there,
     * and only those are decoded, by a parser of their own; the parser skips the rest unread.
     */
    private static String prefix(JsonParser p, ByteSlice body, int maxChars) {
        if (maxChars <= 0) {
            return "";
        }
        byte[] bytes = body.array();
        // The token starts at its opening quote; offsets count from the start of the slice the parser was given.
        int from = body.offset() + (int) p.currentTokenLocation().getByteOffset() + 1;
        int end = body.offset() + body.length();
        int i = from;
        for (int chars = 0; i < end && bytes[i] != '"'; ) {
            int lead = bytes[i] & 0xFF;
            int count = lead >= 0xF0 ? 2 : 1;
            if (chars + count > maxChars) {
                break;
            }
            chars += count;
            i += lead == '\\' ? (i + 1 < end && bytes[i + 1] == 'u' ? 6 : 2)
                    : lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
        }
        if (i >= end || bytes[i] == '"') {
            // The whole value fits (or the body ends inside it, which the parser reports).
            return p.getString();
        }
        byte[] quoted = new byte[i - from + 2];
        quoted[0] = '"';
        System.arraycopy(bytes, from, quoted, 1, i - from);
        quoted[quoted.length - 1] = '"';
        try (JsonParser part = JSON.createParser(quoted)) {
            part.nextToken();
            return part.getString();
        }
    }

    /**
     * The exact JSON text of the current value, sliced from the body by offsets rather than re-serialised; of a
     * value longer than the routing text, enough for it, cut before a UTF-8 character it would split.
     */
    private static String rawJson(JsonParser p, ByteSlice body, String what) {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return "";
        }
        expect(p, JsonToken.START_ARRAY, what, "an array");
        // Offsets count from the start of the slice the parser was given.
        long start = p.currentTokenLocation().getByteOffset();
        p.skipChildren();
        long end = p.currentTokenLocation().getByteOffset() + 1;
        if (start < 0 || end > body.length()) {
            return "";
        }
        int from = body.offset() + (int) start;
        // Enough bytes for the routing text's length in characters of up to four bytes each; the builder cuts it.
        int to = body.offset() + (int) Math.min(end, start + 4L * RoutingTextBuilder.MAX_CHARS);
        while (to < body.offset() + end && to > from && (body.array()[to] & 0xC0) == 0x80) {
            to--;
        }
        return new String(body.array(), from, to - from, StandardCharsets.UTF_8);
    }

    private static String optionalString(JsonParser p, String what) {
        return switch (p.currentToken()) {
            case VALUE_STRING -> p.getString();
            case VALUE_NULL -> null;
            default -> throw new FieldTypeException(what + " must be a string");
        };
    }

    private static boolean optionalBoolean(JsonParser p, String what) {
        return switch (p.currentToken()) {
            case VALUE_TRUE -> true;
            case VALUE_FALSE, VALUE_NULL -> false;
            default -> throw new FieldTypeException(what + " must be a boolean");
        };
    }

    private static void expect(JsonParser p, JsonToken token, String what, String shape) {
        if (p.currentToken() != token) {
            throw new FieldTypeException(what + " must be " + shape);
        }
    }

    /** A field of the wrong JSON type; unchecked so that it crosses the parse loop, turned into a 400 by the caller. */
    private static final class FieldTypeException extends JacksonException {
        FieldTypeException(String message) {
            super(message);
        }
    }
}
