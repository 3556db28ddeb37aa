package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;
import java.util.function.LongSupplier;

/**
 * The fields the gateway adds to a request body, the one explicit body rewrite of its design: a prefill/decode
 * pair's {@code bootstrap_host}, {@code bootstrap_port} and {@code bootstrap_room}, and a data-parallel rank's
 * {@code data_parallel_rank}. They are spliced in right after the body's opening brace, as text: the client's bytes
 * around them are forwarded as sent, never parsed into a tree and written again.
 *
 * <p>{@link #read} looks at a body's top level once for what the splice depends on: how many items a batch holds
 * (each item gets its own room, so every bootstrap field is then an array with one value per item), whether the
 * client asked for log probabilities (the decode answer then gets the prefill's input log probabilities), and
 * whether the client set one of these fields itself, which the gateway refuses rather than send a body holding the
 * key twice.
 *
 * <p>A batch's items are counted as the engine counts them: its prompts (a {@code text}, {@code prompt} or
 * {@code input_ids} array of them, else one) times the native {@code sampling_params.n}, the whole list once a
 * sample. An OpenAI request's top-level {@code n} asks for several choices of its one prompt: it keeps one value of
 * each field, which the engine reads as consecutive rooms from the one given.
 *
 * @param batchItems how many items the request holds when it is a batch (more than one prompt, or a native
 *                   {@code n} above 1), else 0
 * @param logprobs   the client asked for log probabilities ({@code return_logprob} or {@code logprobs})
 */
public record AddedFields(int batchItems, boolean logprobs) {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final String[] OWNED = {"bootstrap_host", "bootstrap_port", "bootstrap_room", "data_parallel_rank"};

    /**
     * Reads the top level of a body the sniffer already accepted as one JSON object.
     *
     * @throws BadRequestException when the body sets a field the gateway adds, or holds an empty batch
     */
    public static AddedFields read(ByteSlice body) throws BadRequestException {
        int n = 0;
        int items = 0;
        boolean logprobs = false;
        try (JsonParser p = JSON.createParser(body.array(), body.offset(), body.length())) {
            p.nextToken();
            while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                for (String owned : OWNED) {
                    if (owned.equals(name)) {
                        throw new BadRequestException("'" + name + "' is set by the gateway, not by the request");
                    }
                }
                switch (name) {
                    case "sampling_params" -> n = samplingN(p);
                    case "text", "prompt", "input_ids" -> items = Math.max(items, batchItems(p, name));
                    case "return_logprob", "logprobs" -> logprobs |= value == JsonToken.VALUE_TRUE
                            || value == JsonToken.VALUE_NUMBER_INT && p.getIntValue() > 0;
                    default -> p.skipChildren();
                }
            }
        } catch (JacksonException e) {
            throw new BadRequestException("malformed JSON: " + e.getOriginalMessage());
        }
        return new AddedFields(items == 0 && n <= 1 ? 0 : Math.max(items, 1) * Math.max(n, 1), logprobs);
    }

    /** An integer value, or 0 for any other; the parser is left at the value's end. */
    private static int count(JsonParser p) {
        if (p.currentToken() == JsonToken.VALUE_NUMBER_INT) {
            return p.getIntValue();
        }
        p.skipChildren();
        return 0;
    }

    /** The {@code n} of a native request's {@code sampling_params} object, 0 when absent. */
    private static int samplingN(JsonParser p) {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            p.skipChildren();
            return 0;
        }
        int n = 0;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (name.equals("n")) {
                n = count(p);
            } else {
                p.skipChildren();
            }
        }
        return n;
    }

    /**
     * The items of a batch field: a {@code text} or {@code prompt} array of strings, or an array of token-id arrays;
     * 0 for one text or one array of token ids. The parser is on the field's value and is left at its end.
     */
    private static int batchItems(JsonParser p, String name) throws BadRequestException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            p.skipChildren();
            return 0;
        }
        int items = 0;
        boolean ofTokenIds = false;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            ofTokenIds |= items == 0 && p.currentToken() == JsonToken.VALUE_NUMBER_INT;
            items++;
            p.skipChildren();
        }
        if (items == 0) {
            throw new BadRequestException("'" + name + "' is an empty batch");
        }
        return ofTokenIds ? 0 : items;
    }

    /**
     * The bootstrap fields of a pair whose prefill worker is {@code host} with {@code port} (null when unknown: the
     * engine's default), one room from {@code rooms} per item, as JSON members without braces.
     */
    public String bootstrap(String host, Integer port, LongSupplier rooms) {
        String quotedHost = JSON.writeValueAsString(host);
        String portText = String.valueOf(port);
        if (batchItems == 0) {
            return "\"bootstrap_host\":" + quotedHost + ",\"bootstrap_port\":" + portText + ",\"bootstrap_room\":"
                    + room(rooms);
        }
        StringJoiner hosts = new StringJoiner(",", "[", "]");
        StringJoiner ports = new StringJoiner(",", "[", "]");
        StringJoiner roomList = new StringJoiner(",", "[", "]");
        for (int i = 0; i < batchItems; i++) {
            hosts.add(quotedHost);
            ports.add(portText);
            roomList.add(Long.toString(room(rooms)));
        }
        return "\"bootstrap_host\":" + hosts + ",\"bootstrap_port\":" + ports + ",\"bootstrap_room\":" + roomList;
    }

    /** The rank field of a worker that is one data-parallel rank of its engine, as a JSON member. */
    public static String rank(int rank) {
        return "\"data_parallel_rank\":" + rank;
    }

    /**
     * {@code body} with {@code members} (JSON members, comma-separated, no braces) right after its opening brace;
     * the body's own bytes are copied as they are. The body is a JSON object that the sniffer accepted, so its first
     * brace (after an optional byte-order mark and blanks) is the object's.
     */
    public static Buffer splice(Buffer body, String members) {
        ByteSlice bytes = ByteSlice.of(body);
        byte[] array = bytes.array();
        int end = bytes.offset() + bytes.length();
        int brace = bytes.offset();
        while (array[brace] != '{') {
            brace++;
        }
        int next = brace + 1;
        while (next < end && isBlank(array[next])) {
            next++;
        }
        boolean empty = next < end && array[next] == '}';
        int head = brace + 1 - bytes.offset();
        byte[] added = (empty ? members : members + ",").getBytes(StandardCharsets.UTF_8);
        Buffer out = Buffer.buffer(bytes.length() + added.length);
        out.appendBytes(bytes.array(), bytes.offset(), head);
        out.appendBytes(added);
        out.appendBytes(bytes.array(), bytes.offset() + head, bytes.length() - head);
        return out;
    }

    private static boolean isBlank(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    /** A room as SGLang draws one: a random non-negative 63-bit integer. */
    private static long room(LongSupplier rooms) {
        return rooms.getAsLong() & Long.MAX_VALUE;
    }
}
