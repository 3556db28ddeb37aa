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
 * <p>The routing text is a prefix of at most {@link #MAX_CHARS} characters: what comes later is dropped as it is
 * fed, so a request of any size costs its policy (the tree's walk, the characters the tree keeps) and the gateway
 * (the text it holds) no more than that. A feeder may ask a field's {@link FieldText#room} to decode no more.
 *
 * <p>Not thread-safe: one builder per request, on one thread.
 */
public final class RoutingTextBuilder {

    /**
     * The longest routing text. A policy matches the beginning of a prompt, and a million characters (some 256K
     * tokens at four a token) is more of it than telling prompts apart by their cached prefix needs, while it bounds
     * what one request costs on an event loop. The offline simulator's longest prompt, Mooncake's 126,195
     * characters, is an eighth of it, so its routing is what it would be with no bound. Against the tree, one
     * request is at most a sixty-fourth of the default {@code --max-tree-size} (64 Mi characters) of its model.
     */
    public static final int MAX_CHARS = 1 << 20;

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
        tools = prefix(json);
        return this;
    }

    /** Responses' {@code instructions} (empty for none): they go first, as a system turn. */
    public RoutingTextBuilder instructions(String value) {
        requireKind(kind == RequestKind.RESPONSES, "instructions");
        instructions = prefix(value);
        return this;
    }

    /** The routing text, never null, at most {@link #MAX_CHARS} long. */
    public String build() {
        return prefix(switch (kind) {
            case CHAT -> tools.isEmpty() ? text.value() : "<|tools|>" + tools + text.value();
            case GENERATE -> text.isEmpty() ? inputIds.value() : text.value();
            case RESPONSES -> instructions.isEmpty() ? text.value() : "<|system|>" + instructions + text.value();
            case COMPLETION, EMBEDDING, RERANK -> text.value();
        });
    }

    private static String prefix(String value) {
        return value.length() <= MAX_CHARS ? value : value.substring(0, MAX_CHARS);
    }

    private void requireKind(boolean legal, String what) {
        if (!legal) {
            throw new IllegalStateException("a " + kind + " request has no " + what);
        }
    }

    /**
     * Text gathered from one or more field values, up to {@link #MAX_CHARS}: the part of a value past it is dropped.
     * A text of one string value (a prompt, most often) is that string itself, not a copy; a second piece starts a
     * buffer for them all.
     */
    public static final class FieldText {
        private final int expectedChars;
        private String only = "";
        private StringBuilder joined;

        private FieldText(int expectedChars) {
            this.expectedChars = Math.min(expectedChars, MAX_CHARS);
        }

        /** Appends a string value as it is, as far as there is room. */
        public FieldText append(CharSequence value) {
            int room = room();
            if (room == 0) {
                return this;
            }
            if (value.length() > room) {
                value = value.subSequence(0, room);
            }
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
            if (room() == 0) {
                return this;
            }
            if (joined == null) {
                joined = new StringBuilder(Math.max(expectedChars, only.length() + 20)).append(only);
            }
            joined.append(tokenId);
            if (joined.length() > MAX_CHARS) {
                joined.setLength(MAX_CHARS);
            }
            return this;
        }

        /** How many more characters this text takes; a feeder need decode no more of a value than that. */
        public int room() {
            return MAX_CHARS - (joined == null ? only.length() : joined.length());
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
