package dev.homing.core.replica;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of a frame of {@link ReplicaEvent}s from one replica: what goes on the bus. Compact and versioned:
 * <pre>
 *   frame  = version(1) replica(8) count(varint) event*
 *   event  = kind(1) fields          strings are a per-frame table: varint 0 then the UTF-8 text (varint length
 *                                    first) the first time, varint n for the n-th text after that
 *   Placed = model worker parent(8) blocks textChars heldChars      blocks = count(varint) hash(8)*
 *   Trimmed= model worker anchor(8) anchorBlocks keptPath
 *   Held   = model parent(8) hash(8) workers(count(varint) string*)
 *   Loads  = count(varint) (worker inFlight)*
 * </pre>
 * Lengths and counts are unsigned LEB128 varints; hashes are 8 bytes big-endian. A frame of another version, or one
 * that ends early, is refused with {@link IllegalArgumentException} (a replica of another release, a broken message).
 * Stateless and thread-safe.
 */
public final class ReplicaCodec {

    public static final int VERSION = 1;

    private static final int PLACED = 1;
    private static final int TRIMMED = 2;
    private static final int HELD = 3;
    private static final int LOADS = 4;

    /** The events of one frame and the replica that sent them. */
    public record Frame(long replica, List<ReplicaEvent> events) {
    }

    private ReplicaCodec() {
    }

    public static byte[] encode(long replica, List<? extends ReplicaEvent> events) {
        Writer out = new Writer();
        out.byte1(VERSION);
        out.long8(replica);
        out.varint(events.size());
        for (ReplicaEvent event : events) {
            switch (event) {
                case ReplicaEvent.Placed p -> {
                    out.byte1(PLACED);
                    out.string(p.model());
                    out.string(p.worker());
                    out.long8(p.parent());
                    out.longs(p.blocks());
                    out.varint(p.textChars());
                    out.varint(p.heldChars());
                }
                case ReplicaEvent.Trimmed t -> {
                    out.byte1(TRIMMED);
                    out.string(t.model());
                    out.string(t.worker());
                    out.long8(t.anchor());
                    out.varint(t.anchorBlocks());
                    out.longs(t.keptPath());
                }
                case ReplicaEvent.Held h -> {
                    out.byte1(HELD);
                    out.string(h.model());
                    out.long8(h.parent());
                    out.long8(h.hash());
                    out.varint(h.workers().size());
                    h.workers().forEach(out::string);
                }
                case ReplicaEvent.Loads l -> {
                    out.byte1(LOADS);
                    out.varint(l.inFlight().size());
                    l.inFlight().forEach((worker, count) -> {
                        out.string(worker);
                        out.varint(count);
                    });
                }
            }
        }
        return out.bytes();
    }

    /** @throws IllegalArgumentException for a frame of another version, or a truncated or malformed one */
    public static Frame decode(byte[] bytes) {
        Reader in = new Reader(bytes);
        try {
            int version = in.byte1();
            if (version != VERSION) {
                throw new IllegalArgumentException("replica frame of version " + version + ", this replica reads "
                        + VERSION);
            }
            long replica = in.long8();
            int count = in.varint();
            List<ReplicaEvent> events = new ArrayList<>(Math.min(count, 1 << 16));
            for (int i = 0; i < count; i++) {
                int kind = in.byte1();
                events.add(switch (kind) {
                    case PLACED -> new ReplicaEvent.Placed(in.string(), in.string(), in.long8(), in.longs(),
                            in.varint(), in.varint());
                    case TRIMMED -> new ReplicaEvent.Trimmed(in.string(), in.string(), in.long8(), in.varint(),
                            in.longs());
                    case HELD -> {
                        String model = in.string();
                        long parent = in.long8();
                        long hash = in.long8();
                        int n = in.varint();
                        List<String> workers = new ArrayList<>(Math.min(n, 1024));
                        for (int w = 0; w < n; w++) {
                            workers.add(in.string());
                        }
                        yield new ReplicaEvent.Held(model, parent, hash, workers);
                    }
                    case LOADS -> {
                        int n = in.varint();
                        Map<String, Integer> inFlight = new LinkedHashMap<>();
                        for (int w = 0; w < n; w++) {
                            inFlight.put(in.string(), in.varint());
                        }
                        yield new ReplicaEvent.Loads(inFlight);
                    }
                    default -> throw new IllegalArgumentException("unknown replica event kind " + kind);
                });
            }
            return new Frame(replica, events);
        } catch (ArrayIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("replica frame ends early (" + bytes.length + " bytes)", e);
        }
    }

    private static final class Writer {
        private byte[] buf = new byte[256];
        private int size;
        private final Map<String, Integer> strings = new HashMap<>();

        void byte1(int b) {
            ensure(1);
            buf[size++] = (byte) b;
        }

        void varint(int value) {
            long v = Integer.toUnsignedLong(value);
            ensure(5);
            while (v >= 0x80) {
                buf[size++] = (byte) (v | 0x80);
                v >>>= 7;
            }
            buf[size++] = (byte) v;
        }

        void long8(long v) {
            ensure(8);
            for (int shift = 56; shift >= 0; shift -= 8) {
                buf[size++] = (byte) (v >>> shift);
            }
        }

        void longs(long[] values) {
            varint(values.length);
            for (long v : values) {
                long8(v);
            }
        }

        void string(String s) {
            Integer known = strings.get(s);
            if (known != null) {
                varint(known);
                return;
            }
            strings.put(s, strings.size() + 1);
            varint(0);
            byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
            varint(utf8.length);
            ensure(utf8.length);
            System.arraycopy(utf8, 0, buf, size, utf8.length);
            size += utf8.length;
        }

        private void ensure(int more) {
            if (size + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
            }
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, size);
        }
    }

    private static final class Reader {
        private final byte[] buf;
        private int pos;
        private final List<String> strings = new ArrayList<>();

        Reader(byte[] buf) {
            this.buf = buf;
        }

        int byte1() {
            return buf[pos++] & 0xFF;
        }

        int varint() {
            long v = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                int b = byte1();
                v |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    if (v > Integer.MAX_VALUE) {
                        break;
                    }
                    return (int) v;
                }
            }
            throw new IllegalArgumentException("replica frame holds a malformed count at byte " + pos);
        }

        long long8() {
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | byte1();
            }
            return v;
        }

        long[] longs() {
            int n = varint();
            if (n > (buf.length - pos) / 8) {
                throw new IllegalArgumentException("replica frame claims " + n + " hashes in " + (buf.length - pos)
                        + " bytes");
            }
            long[] values = new long[n];
            for (int i = 0; i < n; i++) {
                values[i] = long8();
            }
            return values;
        }

        String string() {
            int ref = varint();
            if (ref > 0) {
                if (ref > strings.size()) {
                    throw new IllegalArgumentException("replica frame names text " + ref + " of " + strings.size());
                }
                return strings.get(ref - 1);
            }
            int length = varint();
            if (length > buf.length - pos) {
                throw new IllegalArgumentException("replica frame claims " + length + " bytes of text");
            }
            String s = new String(buf, pos, length, StandardCharsets.UTF_8);
            pos += length;
            strings.add(s);
            return s;
        }
    }
}
