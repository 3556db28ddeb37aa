package dev.homing.gateway.proxy;

import io.vertx.core.buffer.Buffer;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Merges a prefill answer's input log probabilities into its decode partner's answer, as the client asked for log
 * probabilities and only the prefill worker computed the prompt's. SGLang reports them as
 * {@code meta_info.input_token_logprobs}: the prefill's list goes in front of the decode's own in every answer object
 * (a JSON answer, each object of a batch's array, each event of a stream), matched by the item's {@code index} (its
 * place in a batch). An answer object without {@code meta_info} (OpenAI's shapes) passes unchanged.
 *
 * <p>The merge splices text into the decode answer at byte offsets its streaming parse found; the rest of the answer
 * is copied as it came. A JSON answer is merged whole at its end; an event stream event by event, each as soon as its
 * blank line arrives.
 *
 * <p>Not thread-safe: one instance per answer, on its exchange's event loop.
 */
final class LogprobMerge implements SseRelay.Rewrite {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final byte[] EVENT_END = {'\n', '\n'};
    /** An event stream that never ends an event is passed on unchanged beyond this much. */
    private static final int EVENT_LIMIT = 16 * 1024 * 1024;

    /** The prefill's input log probabilities by item: the text between the brackets of each list. */
    private final Map<Integer, String> prefill;
    private final boolean eventStream;
    private Buffer pending = Buffer.buffer();

    LogprobMerge(Map<Integer, String> prefill, boolean eventStream) {
        this.prefill = prefill;
        this.eventStream = eventStream;
    }

    /** The input log probabilities of a prefill answer (JSON or event stream), by item; empty when it has none. */
    static Map<Integer, String> prefillLogprobs(Buffer answer) {
        Map<Integer, String> found = new TreeMap<>();
        byte[] bytes = answer.getBytes();
        if (startsWithData(bytes)) {
            forEachEvent(bytes, 0, bytes.length, (from, to) -> {
                int payload = dataPayload(bytes, from, to);
                if (payload >= 0) {
                    collect(bytes, payload, to - EVENT_END.length, found, 0);
                }
            });
        } else {
            collect(bytes, 0, bytes.length, found, -1);
        }
        return found;
    }

    @Override
    public Buffer chunk(Buffer chunk) {
        pending.appendBuffer(chunk);
        if (!eventStream) {
            return Buffer.buffer();
        }
        byte[] bytes = pending.getBytes();
        Buffer out = Buffer.buffer(bytes.length + 256);
        int done = forEachEvent(bytes, 0, bytes.length, (from, to) -> out.appendBytes(mergedEvent(bytes, from, to)));
        if (done == 0 && bytes.length > EVENT_LIMIT) {
            done = bytes.length;
            out.appendBytes(bytes);
        }
        pending = Buffer.buffer().appendBytes(bytes, done, bytes.length - done);
        return out;
    }

    @Override
    public Buffer end() {
        byte[] bytes = pending.getBytes();
        pending = Buffer.buffer();
        return Buffer.buffer(eventStream ? bytes : merged(bytes, 0, bytes.length, -1));
    }

    /** One event, {@code data: {...}} merged; any other event as it is. */
    private byte[] mergedEvent(byte[] bytes, int from, int to) {
        int payload = dataPayload(bytes, from, to);
        if (payload < 0) {
            return slice(bytes, from, to);
        }
        int end = to - EVENT_END.length;
        byte[] merged = merged(bytes, payload, end, 0);
        byte[] out = new byte[payload - from + merged.length + EVENT_END.length];
        System.arraycopy(bytes, from, out, 0, payload - from);
        System.arraycopy(merged, 0, out, payload - from, merged.length);
        System.arraycopy(EVENT_END, 0, out, out.length - EVENT_END.length, EVENT_END.length);
        return out;
    }

    /**
     * A JSON document (an object, or an array of objects) with the prefill's lists spliced in; unchanged when it is
     * not JSON or holds no {@code meta_info}. {@code defaultItem}: the item of an object without {@code index} (-1:
     * its place in the array).
     */
    private byte[] merged(byte[] bytes, int from, int to, int defaultItem) {
        List<Splice> splices = new ArrayList<>();
        try {
            forEachItem(bytes, from, to, defaultItem, (p, position) -> item(p, bytes, from, position, splices));
        } catch (JacksonException e) {
            return slice(bytes, from, to);
        }
        return Splice.apply(bytes, from, to, splices);
    }

    /** What is done with each answer object of a document, the parser on its START_OBJECT and left at its end. */
    private interface ItemVisitor {
        void visit(JsonParser p, int position);
    }

    /**
     * Visits the answer objects of a JSON document: the document itself, or each object of its array. An object's
     * position is {@code defaultItem}, or its place in the array when that is negative.
     *
     * @throws JacksonException when the document is not JSON
     */
    private static void forEachItem(byte[] bytes, int from, int to, int defaultItem, ItemVisitor visitor) {
        try (JsonParser p = JSON.createParser(bytes, from, to - from)) {
            JsonToken first = p.nextToken();
            if (first == JsonToken.START_OBJECT) {
                visitor.visit(p, Math.max(defaultItem, 0));
            } else if (first == JsonToken.START_ARRAY) {
                int position = 0;
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), position++) {
                    if (t == JsonToken.START_OBJECT) {
                        visitor.visit(p, defaultItem < 0 ? position : defaultItem);
                    } else {
                        p.skipChildren();
                    }
                }
            }
        }
    }

    /** One answer object, the parser on its START_OBJECT: its splice, if it has {@code meta_info}. */
    private void item(JsonParser p, byte[] bytes, int base, int position, List<Splice> splices) {
        Splice[] splice = {null};
        Integer index = walkItem(p, meta -> splice[0] = metaInfo(meta, bytes, base));
        String lists = prefill.get(index != null ? index : position);
        if (lists == null && prefill.size() == 1) {
            lists = prefill.values().iterator().next();
        }
        if (splice[0] != null && lists != null && !lists.isEmpty()) {
            splices.add(splice[0].with(lists));
        }
    }

    /**
     * Reads one answer object, the parser on its START_OBJECT and left at its end: returns its {@code index} (null
     * when it has none) and hands its {@code meta_info}, the parser on that object's START_OBJECT, to {@code meta},
     * which must leave the parser at its end.
     */
    private static Integer walkItem(JsonParser p, Consumer<JsonParser> meta) {
        Integer index = null;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            if (name.equals("index") && value == JsonToken.VALUE_NUMBER_INT) {
                index = p.getIntValue();
            } else if (name.equals("meta_info") && value == JsonToken.START_OBJECT) {
                meta.accept(p);
            } else {
                p.skipChildren();
            }
        }
        return index;
    }

    /** Where the prefill's list goes in one {@code meta_info}, the parser on its START_OBJECT; left at its end. */
    private static Splice metaInfo(JsonParser p, byte[] bytes, int base) {
        int brace = base + (int) p.currentTokenLocation().getByteOffset();
        Splice splice = null;
        boolean empty = true;
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
            empty = false;
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int at = base + (int) p.currentTokenLocation().getByteOffset();
            if (name.equals("input_token_logprobs") && value == JsonToken.START_ARRAY) {
                p.skipChildren();
                boolean none = bytes[firstNonBlank(bytes, at + 1)] == ']';
                splice = new Splice(at + 1, 0, "", none ? "" : ",", null);
            } else if (name.equals("input_token_logprobs") && value == JsonToken.VALUE_NULL) {
                splice = new Splice(at, 4, "[", "]", null);
            } else {
                p.skipChildren();
            }
        }
        return splice != null ? splice
                : new Splice(brace + 1, 0, "\"input_token_logprobs\":[", empty ? "]" : "],", null);
    }

    /** Collects a prefill document's lists by item. */
    private static void collect(byte[] bytes, int from, int to, Map<Integer, String> found, int defaultItem) {
        try {
            forEachItem(bytes, from, to, defaultItem, (p, position) -> collectItem(p, bytes, from, position, found));
        } catch (JacksonException e) {
            // Not JSON (an event such as [DONE]): nothing to collect.
        }
    }

    private static void collectItem(JsonParser p, byte[] bytes, int base, int position, Map<Integer, String> found) {
        String[] lists = {null};
        Integer index = walkItem(p, meta -> {
            while (meta.nextToken() == JsonToken.PROPERTY_NAME) {
                String field = meta.currentName();
                if (meta.nextToken() == JsonToken.START_ARRAY && field.equals("input_token_logprobs")) {
                    int open = base + (int) meta.currentTokenLocation().getByteOffset();
                    meta.skipChildren();
                    int close = base + (int) meta.currentTokenLocation().getByteOffset();
                    lists[0] = new String(bytes, open + 1, close - open - 1, StandardCharsets.UTF_8).strip();
                } else {
                    meta.skipChildren();
                }
            }
        });
        if (lists[0] != null && !lists[0].isEmpty()) {
            found.putIfAbsent(index != null ? index : position, lists[0]);
        }
    }

    /** Calls {@code event} with each whole event's range (its blank line included); returns where the rest starts. */
    private static int forEachEvent(byte[] bytes, int from, int to, EventRange event) {
        int start = from;
        for (int i = from; i + 1 < to; i++) {
            if (bytes[i] == '\n' && bytes[i + 1] == '\n') {
                event.accept(start, i + 2);
                start = i + 2;
                i++;
            }
        }
        return start;
    }

    private interface EventRange {
        void accept(int from, int to);
    }

    /** Where a {@code data:} event's JSON object starts, or -1 for any other event. */
    private static int dataPayload(byte[] bytes, int from, int to) {
        int at = firstNonBlank(bytes, from);
        if (at + 5 > to || bytes[at] != 'd' || bytes[at + 1] != 'a' || bytes[at + 2] != 't' || bytes[at + 3] != 'a'
                || bytes[at + 4] != ':') {
            return -1;
        }
        int payload = at + 5;
        while (payload < to && bytes[payload] == ' ') {
            payload++;
        }
        return payload < to && bytes[payload] == '{' ? payload : -1;
    }

    private static boolean startsWithData(byte[] bytes) {
        int at = firstNonBlank(bytes, 0);
        return at + 5 <= bytes.length && new String(bytes, at, 5, StandardCharsets.US_ASCII).equals("data:");
    }

    private static int firstNonBlank(byte[] bytes, int from) {
        int i = from;
        while (i < bytes.length && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) {
            i++;
        }
        return Math.min(i, bytes.length - 1);
    }

    private static byte[] slice(byte[] bytes, int from, int to) {
        byte[] out = new byte[to - from];
        System.arraycopy(bytes, from, out, 0, out.length);
        return out;
    }

    /**
     * Text put in at {@code at}, in place of {@code removed} bytes there: {@code before}, the lists, {@code after}.
     */
    private record Splice(int at, int removed, String before, String after, String lists) {

        Splice with(String prefillLists) {
            return new Splice(at, removed, before, after, prefillLists);
        }

        /** {@code bytes[from, to)} with {@code splices} (in offset order) applied. */
        static byte[] apply(byte[] bytes, int from, int to, List<Splice> splices) {
            Buffer out = Buffer.buffer(to - from + 256);
            int copied = from;
            for (Splice splice : splices) {
                out.appendBytes(bytes, copied, splice.at - copied);
                out.appendString(splice.before + splice.lists + splice.after, "UTF-8");
                copied = splice.at + splice.removed;
            }
            out.appendBytes(bytes, copied, to - copied);
            return out.getBytes();
        }
    }
}
