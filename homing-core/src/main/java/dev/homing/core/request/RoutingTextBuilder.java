package dev.homing.core.request;

/**
 * Builds the routing text of one request from its fields, by the rule of its {@link RequestKind}: the one place
 * those rules live. The gateway's body sniffer feeds it field by field as it parses; the offline simulator feeds it
 * the messages it renders, so both route on the very same text.
 *
 * <ul>
 *   <li>{@link #text()} takes the fields a kind matches on (prompt, text, input, query): string values as they are,
 *       list values joined with spaces, token ids as decimals.</li>
 *   <li>{@link #message} appends a chat message as {@code <|role|>} followed by its content.</li>
 *   <li>{@link #tools} (chat) and {@link #instructions} (responses) are put first, as {@code <|tools|>} and
 *       {@code <|system|>} turns; {@link #inputIds} (generate) is the text only when {@code text} gave none.</li>
 * </ul>
 * A field fed twice (a body with a repeated key) appends to the text, while tools, instructions and input ids keep
 * the last value, as a JSON reader keeps the last value of a repeated key.
 *
 * <p>Not thread-safe: one builder per request, on one thread.
 */
public final class RoutingTextBuilder {

    private final RequestKind kind;
    private final FieldText text;
    private FieldText inputIds = new FieldText(16);
    private String tools = "";
    private String instructions = "";

    private RoutingTextBuilder(RequestKind kind, int expectedChars) {
        this.kind = kind;
        this.text = new FieldText(expectedChars);
    }

    public static RoutingTextBuilder of(RequestKind kind) {
        return new RoutingTextBuilder(kind, 16);
    }

    /** @param expectedChars about how long the text will be, so that building it copies it once */
    public static RoutingTextBuilder of(RequestKind kind, int expectedChars) {
        return new RoutingTextBuilder(kind, expectedChars);
    }

    /** The text the request is matched on: prompt, text, input or query, and the messages. */
    public FieldText text() {
        return text;
    }

    /** Generate's {@code input_ids}: a new value, replacing an earlier one; used when {@code text} gave none. */
    public FieldText inputIds() {
        requireKind(kind == RequestKind.GENERATE, "input ids");
        inputIds = new FieldText(16);
        return inputIds;
    }

    /** Appends one chat message (chat {@code messages}, responses {@code input} items): {@code <|role|>content}. */
    public RoutingTextBuilder message(String role, CharSequence content) {
        requireKind(kind == RequestKind.CHAT || kind == RequestKind.RESPONSES, "messages");
        text.append("<|").append(role).append("|>").append(content);
        return this;
    }

    /** Chat's {@code tools}, as the raw JSON the client sent (empty for none): they go first. */
    public RoutingTextBuilder tools(String json) {
        requireKind(kind == RequestKind.CHAT, "tools");
        tools = json;
        return this;
    }

    /** Responses' {@code instructions} (empty for none): they go first, as a system turn. */
    public RoutingTextBuilder instructions(String value) {
        requireKind(kind == RequestKind.RESPONSES, "instructions");
        instructions = value;
        return this;
    }

    /** The routing text, never null. */
    public String build() {
        return switch (kind) {
            case CHAT -> tools.isEmpty() ? text.value() : "<|tools|>" + tools + text.value();
            case GENERATE -> text.isEmpty() ? inputIds.value() : text.value();
            case RESPONSES -> instructions.isEmpty() ? text.value() : "<|system|>" + instructions + text.value();
            case COMPLETION, EMBEDDING, RERANK -> text.value();
        };
    }

    private void requireKind(boolean legal, String what) {
        if (!legal) {
            throw new IllegalStateException("a " + kind + " request has no " + what);
        }
    }

    /**
     * Text gathered from one or more field values. A text of one string value (a prompt, most often) is that string
     * itself, not a copy; a second piece starts a buffer for them all.
     */
    public static final class FieldText {
        private final int expectedChars;
        private String only = "";
        private StringBuilder joined;

        private FieldText(int expectedChars) {
            this.expectedChars = expectedChars;
        }

        /** Appends a string value as it is. */
        public FieldText append(CharSequence value) {
            if (joined == null) {
                if (only.isEmpty() && value instanceof String string) {
                    only = string;
                    return this;
                }
                joined = new StringBuilder(Math.max(expectedChars, only.length() + value.length())).append(only);
            }
            joined.append(value);
            return this;
        }

        /** Appends one element of a list value: after a space, unless the text is still empty. */
        public FieldText item(String value) {
            return separate().append(value);
        }

        /** Appends one token id of a list value, as a decimal: after a space, unless the text is still empty. */
        public FieldText item(long tokenId) {
            separate();
            if (joined == null) {
                joined = new StringBuilder(Math.max(expectedChars, only.length() + 20)).append(only);
            }
            joined.append(tokenId);
            return this;
        }

        public boolean isEmpty() {
            return joined == null ? only.isEmpty() : joined.isEmpty();
        }

        private FieldText separate() {
            return isEmpty() ? this : append(" ");
        }

        private String value() {
            return joined == null ? only : joined.toString();
        }
    }
}
