package dev.homing.gateway.proxy;

import dev.homing.core.request.RequestKind;
import dev.homing.core.request.RoutingTextBuilder;
import dev.homing.core.request.RoutingTextBuilder.FieldText;
import io.vertx.core.buffer.Buffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
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
 */
public final class RoutingText {

    private static final JsonMapper JSON = JsonMapper.shared();

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
                    case GENERATE -> readGenerate(name, p, f.routingText);
                    case CHAT -> readChat(name, p, f);
                    case COMPLETIONS -> name.equals("prompt") && appendTextOrIds(p, "prompt", text);
                    case RESPONSES -> readResponses(name, p, f.routingText);
                    case EMBEDDINGS, CLASSIFY -> name.equals("input") && appendTextOrIds(p, "input", text);
                    case RERANK, RERANK_LEGACY -> name.equals("query") && appendString(p, "query", text);
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

    private static boolean readGenerate(String name, JsonParser p, RoutingTextBuilder text) {
        if (name.equals("text")) {
            return appendTextOrIds(p, "text", text.text());
        }
        if (name.equals("input_ids")) {
            return appendTextOrIds(p, "input_ids", text.inputIds());
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
            appendMessage(p, "messages[]", f.routingText);
        }
        return true;
    }

    private static boolean readResponses(String name, JsonParser p, RoutingTextBuilder text) {
        if (name.equals("instructions")) {
            String s = optionalString(p, "instructions");
            text.instructions(s == null ? "" : s);
            return true;
        }
        if (!name.equals("input")) {
            return false;
        }
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            text.text().append(p.getString());
        } else {
            expect(p, JsonToken.START_ARRAY, "input", "a string or an array");
            while (p.nextToken() != JsonToken.END_ARRAY) {
                if (p.currentToken() == JsonToken.VALUE_STRING) {
                    text.text().append(p.getString());
                } else {
                    appendMessage(p, "input[]", text);
                }
            }
        }
        return true;
    }

    /** Appends one message object (its role, its text parts and reasoning); the parser is on its START_OBJECT. */
    private static void appendMessage(JsonParser p, String what, RoutingTextBuilder out) {
        expect(p, JsonToken.START_OBJECT, what, "an object");
        String role = "";
        StringBuilder text = new StringBuilder();
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "role" -> {
                    String r = optionalString(p, what + ".role");
                    role = r == null ? "" : r;
                }
                case "content", "reasoning_content" -> appendContent(p, what + "." + name, text);
                default -> p.skipChildren();
            }
        }
        out.message(role, text);
    }

    /** Message content: a string, null, or an array of parts whose {@code text} parts count. */
    private static void appendContent(JsonParser p, String what, StringBuilder out) {
        switch (p.currentToken()) {
            case VALUE_STRING -> out.append(p.getString());
            case VALUE_NULL -> { }
            case START_ARRAY -> {
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    if (p.currentToken() == JsonToken.VALUE_STRING) {
                        out.append(p.getString());
                        continue;
                    }
                    expect(p, JsonToken.START_OBJECT, what + "[]", "a string or an object");
                    while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        if (name.equals("text") && p.currentToken() == JsonToken.VALUE_STRING) {
                            out.append(p.getString());
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
    private static boolean appendTextOrIds(JsonParser p, String what, FieldText out) {
        switch (p.currentToken()) {
            case VALUE_STRING -> out.append(p.getString());
            case VALUE_NULL -> { }
            case START_ARRAY -> appendArray(p, what, out);
            default -> throw new FieldTypeException(what + " must be a string or an array");
        }
        return true;
    }

    private static void appendArray(JsonParser p, String what, FieldText out) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
            switch (p.currentToken()) {
                case VALUE_STRING -> out.item(p.getString());
                case VALUE_NUMBER_INT -> out.item(p.getLongValue());
                case START_ARRAY -> appendArray(p, what, out);
                default -> throw new FieldTypeException(what + " must hold strings or integers");
            }
        }
    }

    private static boolean appendString(JsonParser p, String what, FieldText out) {
        String s = optionalString(p, what);
        if (s != null) {
            out.append(s);
        }
        return true;
    }

    /** The exact JSON text of the current value, sliced from the body by offsets rather than re-serialised. */
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
        return new String(body.array(), body.offset() + (int) start, (int) (end - start), StandardCharsets.UTF_8);
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
