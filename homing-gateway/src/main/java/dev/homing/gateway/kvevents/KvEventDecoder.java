package dev.homing.gateway.kvevents;

import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.Medium;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Reads one KV event batch, the msgpack payload of an engine's event message, into the core's {@link KvEventBatch}.
 *
 * <p>The shapes read, from SGLang's and vLLM's published event schema (msgspec structs):
 * <ul>
 *   <li>The batch: an array {@code [ts, events]} or {@code [ts, events, dp_rank]} (the rank is left out when it is
 *       the default), or a map with the keys {@code ts}, {@code events} and {@code data_parallel_rank} (vLLM) or
 *       {@code attn_dp_rank} (SGLang), for a publisher that encodes the batch as a plain struct.
 *   <li>An event: a map whose {@code type} key names it ({@code BlockStored}, {@code BlockRemoved},
 *       {@code AllBlocksCleared}; current vLLM and SGLang), or a positional array whose first element names it
 *       (older engines). Positions 1 to 6 of a stored block are the same in both engines: block hashes, parent hash,
 *       token ids, block size, LoRA id, medium. Position 7 is where they part: vLLM's LoRA name (then its extra
 *       keys, then the group index) and SGLang's cache salt (then its session id). A removal is block hashes and
 *       medium, then vLLM's group index. Hence {@link ArrayLayout}: the positional form does not say its engine.
 * </ul>
 * Unknown keys and trailing positions are ignored; an event of an unknown type is skipped and counted in
 * {@link KvEventBatch#skippedEvents()}. A block hash is an integer (signed, or unsigned up to 2^64 - 1, read as its
 * 64-bit pattern) or a byte string (read as its low 64 bits, big-endian, the value vLLM sends as an integer).
 *
 * <p>Anything else throws {@link KvEventFormatException}, never another exception; an array or string whose declared
 * length exceeds the bytes left is refused before anything is allocated for it. Immutable and thread-safe.
 */
public final class KvEventDecoder {

    /** Whose positional arrays a stream carries: the engines agree on the first six fields, not after. */
    public enum ArrayLayout {
        /** vLLM: position 7 is the LoRA name, 9 the group index. */
        VLLM,
        /** SGLang: position 7 is the cache salt. */
        SGLANG
    }

    private final ArrayLayout layout;

    public KvEventDecoder(ArrayLayout layout) {
        this.layout = layout;
    }

    /** Decodes one batch; the payload must hold exactly one msgpack value. */
    public KvEventBatch decode(byte[] payload) throws KvEventFormatException {
        try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(payload)) {
            Reader in = new Reader(unpacker, payload.length);
            KvEventBatch batch = in.batch();
            if (unpacker.hasNext()) {
                throw new KvEventFormatException("bytes after the batch, at offset " + unpacker.getTotalReadBytes());
            }
            return batch;
        } catch (MessagePackException | IOException e) {
            throw new KvEventFormatException("not a KV event batch: " + e.getMessage(), e);
        }
    }

    /** The fields of one event, whichever form carried them. */
    private static final class Fields {
        long[] blockHashes;
        Long parentHash;
        int[] tokenIds;
        Integer blockSize;
        Long loraId;
        String medium;
        String loraName;
        String cacheSalt;
        int groupIdx;

        KvEvent stored() throws KvEventFormatException {
            if (blockHashes == null || tokenIds == null || blockSize == null) {
                throw new KvEventFormatException("a BlockStored without block_hashes, token_ids or block_size");
            }
            if (blockSize <= 0 || (long) blockHashes.length * blockSize != tokenIds.length) {
                throw new KvEventFormatException("a BlockStored of " + blockHashes.length + " blocks of " + blockSize
                        + " tokens carries " + tokenIds.length + " tokens");
            }
            return new KvEvent.BlockStored(blockHashes, parentHash, tokenIds, blockSize, loraName, loraId,
                    Medium.of(medium), cacheSalt, groupIdx);
        }

        KvEvent removed() throws KvEventFormatException {
            if (blockHashes == null) {
                throw new KvEventFormatException("a BlockRemoved without block_hashes");
            }
            return new KvEvent.BlockRemoved(blockHashes, Medium.of(medium), groupIdx);
        }
    }

    /** One payload's reading: the unpacker and the checks on declared lengths. */
    private final class Reader {

        private final MessageUnpacker unpacker;
        private final long length;
        private int skipped;

        Reader(MessageUnpacker unpacker, long length) {
            this.unpacker = unpacker;
            this.length = length;
        }

        KvEventBatch batch() throws IOException, KvEventFormatException {
            double ts;
            List<KvEvent> events;
            OptionalInt rank = OptionalInt.empty();
            ValueType type = nextType();
            if (type == ValueType.ARRAY) {
                int size = arrayHeader("the batch");
                if (size < 2) {
                    throw new KvEventFormatException("a batch array of " + size + " elements, not [ts, events, rank]");
                }
                ts = number("ts");
                events = events();
                if (size > 2) {
                    rank = optionalRank();
                }
                skip(size - Math.min(size, 3));
            } else if (type == ValueType.MAP) {
                ts = 0;
                events = null;
                int size = mapHeader("the batch");
                for (int i = 0; i < size; i++) {
                    switch (key()) {
                        case "ts" -> ts = number("ts");
                        case "events" -> events = events();
                        case "data_parallel_rank", "attn_dp_rank" -> rank = optionalRank();
                        case null, default -> unpacker.skipValue();
                    }
                }
                if (events == null) {
                    throw new KvEventFormatException("a batch map without events");
                }
            } else {
                throw new KvEventFormatException("a batch is an array or a map, not " + describe(type));
            }
            return new KvEventBatch(ts, events, rank, skipped);
        }

        private List<KvEvent> events() throws IOException, KvEventFormatException {
            int size = arrayHeader("events");
            List<KvEvent> events = new ArrayList<>(size);
            for (int i = 0; i < size; i++) {
                KvEvent event = switch (nextType()) {
                    case MAP -> mapEvent();
                    case ARRAY -> arrayEvent();
                    default -> throw new KvEventFormatException("event " + i + " is neither a map nor an array");
                };
                if (event == null) {
                    skipped++;
                } else {
                    events.add(event);
                }
            }
            return events;
        }

        /** A tagged map; null for an unknown type. */
        private KvEvent mapEvent() throws IOException, KvEventFormatException {
            int size = mapHeader("an event");
            String type = null;
            Fields fields = new Fields();
            for (int i = 0; i < size; i++) {
                switch (key()) {
                    case "type" -> type = string("type");
                    case "block_hashes" -> fields.blockHashes = hashes();
                    case "parent_block_hash" -> fields.parentHash = optionalHash();
                    case "token_ids" -> fields.tokenIds = tokens();
                    case "block_size" -> fields.blockSize = integer("block_size");
                    case "lora_id" -> fields.loraId = optionalLong("lora_id");
                    case "medium" -> fields.medium = optionalString("medium");
                    case "lora_name" -> fields.loraName = optionalString("lora_name");
                    case "cache_salt" -> fields.cacheSalt = optionalString("cache_salt");
                    case "group_idx" -> fields.groupIdx = optionalInt("group_idx");
                    case null, default -> unpacker.skipValue();
                }
            }
            if (type == null) {
                throw new KvEventFormatException("an event map without a type");
            }
            return build(type, fields);
        }

        /** A tagged positional array; null for an unknown type. */
        private KvEvent arrayEvent() throws IOException, KvEventFormatException {
            int size = arrayHeader("an event");
            if (size == 0) {
                throw new KvEventFormatException("an empty event array");
            }
            String type = string("an event's tag");
            Fields fields = new Fields();
            int read = 1;
            switch (type) {
                case "BlockStored" -> {
                    if (size < 5) {
                        throw new KvEventFormatException("a BlockStored array of " + size + " elements");
                    }
                    fields.blockHashes = hashes();
                    fields.parentHash = optionalHash();
                    fields.tokenIds = tokens();
                    fields.blockSize = integer("block_size");
                    read = 5;
                    if (read < size) {
                        fields.loraId = optionalLong("lora_id");
                        read++;
                    }
                    if (read < size) {
                        fields.medium = optionalString("medium");
                        read++;
                    }
                    if (read < size) {
                        String seventh = optionalString(layout == ArrayLayout.VLLM ? "lora_name" : "cache_salt");
                        if (layout == ArrayLayout.VLLM) {
                            fields.loraName = seventh;
                        } else {
                            fields.cacheSalt = seventh;
                        }
                        read++;
                    }
                    if (layout == ArrayLayout.VLLM && read + 1 < size) {
                        unpacker.skipValue(); // extra_keys
                        fields.groupIdx = optionalInt("group_idx");
                        read += 2;
                    }
                }
                case "BlockRemoved" -> {
                    if (size < 2) {
                        throw new KvEventFormatException("a BlockRemoved array of " + size + " elements");
                    }
                    fields.blockHashes = hashes();
                    read = 2;
                    if (read < size) {
                        fields.medium = optionalString("medium");
                        read++;
                    }
                    if (layout == ArrayLayout.VLLM && read < size) {
                        fields.groupIdx = optionalInt("group_idx");
                        read++;
                    }
                }
                default -> {
                }
            }
            skip(size - read);
            return build(type, fields);
        }

        private KvEvent build(String type, Fields fields) throws KvEventFormatException {
            return switch (type) {
                case "BlockStored" -> fields.stored();
                case "BlockRemoved" -> fields.removed();
                case "AllBlocksCleared" -> new KvEvent.AllBlocksCleared();
                default -> null;
            };
        }

        private long[] hashes() throws IOException, KvEventFormatException {
            int size = arrayHeader("block_hashes");
            long[] hashes = new long[size];
            for (int i = 0; i < size; i++) {
                hashes[i] = hash();
            }
            return hashes;
        }

        private Long optionalHash() throws IOException, KvEventFormatException {
            return unpacker.tryUnpackNil() ? null : hash();
        }

        /** An integer as its 64-bit pattern (so an unsigned one above 2^63 too), or a byte string's low 64 bits. */
        private long hash() throws IOException, KvEventFormatException {
            MessageFormat format = unpacker.getNextFormat();
            if (format == MessageFormat.UINT64) {
                return unpacker.unpackBigInteger().longValue();
            }
            return switch (format.getValueType()) {
                case INTEGER -> unpacker.unpackLong();
                case BINARY -> {
                    int size = unpacker.unpackBinaryHeader();
                    requireRemaining(size, "a block hash");
                    byte[] bytes = unpacker.readPayload(size);
                    long low = 0;
                    for (int i = Math.max(0, bytes.length - Long.BYTES); i < bytes.length; i++) {
                        low = low << 8 | (bytes[i] & 0xFF);
                    }
                    yield low;
                }
                default -> throw new KvEventFormatException("a block hash is an integer or bytes, not "
                        + describe(format.getValueType()));
            };
        }

        private int[] tokens() throws IOException, KvEventFormatException {
            int size = arrayHeader("token_ids");
            int[] tokens = new int[size];
            for (int i = 0; i < size; i++) {
                tokens[i] = integer("a token id");
            }
            return tokens;
        }

        private OptionalInt optionalRank() throws IOException, KvEventFormatException {
            return unpacker.tryUnpackNil() ? OptionalInt.empty() : OptionalInt.of(integer("the rank"));
        }

        private double number(String what) throws IOException, KvEventFormatException {
            return switch (nextType()) {
                case FLOAT -> unpacker.unpackDouble();
                case INTEGER -> unpacker.unpackLong();
                default -> throw new KvEventFormatException(what + " is not a number");
            };
        }

        private int integer(String what) throws IOException, KvEventFormatException {
            if (nextType() != ValueType.INTEGER) {
                throw new KvEventFormatException(what + " is not an integer");
            }
            return unpacker.unpackInt();
        }

        private int optionalInt(String what) throws IOException, KvEventFormatException {
            return unpacker.tryUnpackNil() ? 0 : integer(what);
        }

        private Long optionalLong(String what) throws IOException, KvEventFormatException {
            if (unpacker.tryUnpackNil()) {
                return null;
            }
            if (nextType() != ValueType.INTEGER) {
                throw new KvEventFormatException(what + " is not an integer");
            }
            return unpacker.unpackLong();
        }

        private String optionalString(String what) throws IOException, KvEventFormatException {
            return unpacker.tryUnpackNil() ? null : string(what);
        }

        private String string(String what) throws IOException, KvEventFormatException {
            if (nextType() != ValueType.STRING) {
                throw new KvEventFormatException(what + " is not a string");
            }
            int size = unpacker.unpackRawStringHeader();
            requireRemaining(size, what);
            return new String(unpacker.readPayload(size), java.nio.charset.StandardCharsets.UTF_8);
        }

        /** A map key: its text, or null for a key that is not a string (its value is then skipped). */
        private String key() throws IOException, KvEventFormatException {
            if (nextType() != ValueType.STRING) {
                unpacker.skipValue();
                return null;
            }
            return string("a key");
        }

        private int arrayHeader(String what) throws IOException, KvEventFormatException {
            if (nextType() != ValueType.ARRAY) {
                throw new KvEventFormatException(what + " is not an array");
            }
            int size = unpacker.unpackArrayHeader();
            requireRemaining(size, what); // every element takes at least one byte
            return size;
        }

        private int mapHeader(String what) throws IOException, KvEventFormatException {
            int size = unpacker.unpackMapHeader();
            requireRemaining(2L * size, what);
            return size;
        }

        private void requireRemaining(long needed, String what) throws KvEventFormatException {
            long remaining = length - unpacker.getTotalReadBytes();
            if (needed < 0 || needed > remaining) {
                throw new KvEventFormatException(what + " declares " + needed + " elements or bytes, "
                        + remaining + " bytes are left");
            }
        }

        private void skip(int values) throws IOException {
            for (int i = 0; i < values; i++) {
                unpacker.skipValue();
            }
        }

        private ValueType nextType() throws IOException, KvEventFormatException {
            if (!unpacker.hasNext()) {
                throw new KvEventFormatException("the payload ends early, at offset " + unpacker.getTotalReadBytes());
            }
            return unpacker.getNextFormat().getValueType();
        }

        private static String describe(ValueType type) {
            return type.name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
