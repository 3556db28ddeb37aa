package dev.homing.sim.kvevents;

import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.Medium;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Writes one batch of KV events as an engine's msgpack payload, {@code [ts, [events...], dp_rank]}, each event as
 * {@link KvEventsFormat#MAP a tagged map} or {@link KvEventsFormat#ARRAY a positional array} (SGLang's layout:
 * {@code ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium, cache_salt]},
 * {@code ["BlockRemoved", block_hashes, medium]}, {@code ["AllBlocksCleared"]}). The gateway's decoder reads both
 * back. The array form has no place for a LoRA name or a group index: they are left out of it. Stateless.
 */
public final class KvEventEncoder {

    private final KvEventsFormat format;

    public KvEventEncoder(KvEventsFormat format) {
        this.format = format;
    }

    /** The payload of a batch sent at {@code timestamp} (seconds) by rank {@code dpRank}. */
    public byte[] encode(double timestamp, List<KvEvent> events, int dpRank) {
        try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
            out.packArrayHeader(3).packDouble(timestamp).packArrayHeader(events.size());
            for (KvEvent event : events) {
                if (format == KvEventsFormat.MAP) {
                    map(out, event);
                } else {
                    array(out, event);
                }
            }
            out.packInt(dpRank);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("a buffer packer does no I/O", e);
        }
    }

    private static void map(MessageBufferPacker out, KvEvent event) throws IOException {
        switch (event) {
            case KvEvent.BlockStored stored -> {
                int fields = 7 + present(stored.loraName()) + present(stored.cacheSalt())
                    + (stored.groupIdx() != 0 ? 1 : 0);
                out.packMapHeader(fields);
                out.packString("type").packString("BlockStored");
                out.packString("block_hashes");
                hashes(out, stored.blockHashes());
                out.packString("parent_block_hash");
                optionalLong(out, stored.parentHash());
                out.packString("token_ids").packArrayHeader(stored.tokenIds().length);
                for (int token : stored.tokenIds()) {
                    out.packInt(token);
                }
                out.packString("block_size").packInt(stored.blockSize());
                out.packString("lora_id");
                optionalLong(out, stored.loraId());
                out.packString("medium").packString(medium(stored.medium()));
                if (stored.loraName() != null) {
                    out.packString("lora_name").packString(stored.loraName());
                }
                if (stored.cacheSalt() != null) {
                    out.packString("cache_salt").packString(stored.cacheSalt());
                }
                if (stored.groupIdx() != 0) {
                    out.packString("group_idx").packInt(stored.groupIdx());
                }
            }
            case KvEvent.BlockRemoved removed -> {
                out.packMapHeader(removed.groupIdx() != 0 ? 4 : 3);
                out.packString("type").packString("BlockRemoved");
                out.packString("block_hashes");
                hashes(out, removed.blockHashes());
                out.packString("medium").packString(medium(removed.medium()));
                if (removed.groupIdx() != 0) {
                    out.packString("group_idx").packInt(removed.groupIdx());
                }
            }
            case KvEvent.AllBlocksCleared cleared -> out.packMapHeader(1).packString("type")
                .packString("AllBlocksCleared");
        }
    }

    private static void array(MessageBufferPacker out, KvEvent event) throws IOException {
        switch (event) {
            case KvEvent.BlockStored stored -> {
                out.packArrayHeader(8).packString("BlockStored");
                hashes(out, stored.blockHashes());
                optionalLong(out, stored.parentHash());
                out.packArrayHeader(stored.tokenIds().length);
                for (int token : stored.tokenIds()) {
                    out.packInt(token);
                }
                out.packInt(stored.blockSize());
                optionalLong(out, stored.loraId());
                out.packString(medium(stored.medium()));
                if (stored.cacheSalt() == null) {
                    out.packNil();
                } else {
                    out.packString(stored.cacheSalt());
                }
            }
            case KvEvent.BlockRemoved removed -> {
                out.packArrayHeader(3).packString("BlockRemoved");
                hashes(out, removed.blockHashes());
                out.packString(medium(removed.medium()));
            }
            case KvEvent.AllBlocksCleared cleared -> out.packArrayHeader(1).packString("AllBlocksCleared");
        }
    }

    private static void hashes(MessageBufferPacker out, long[] hashes) throws IOException {
        out.packArrayHeader(hashes.length);
        for (long hash : hashes) {
            out.packLong(hash);
        }
    }

    private static void optionalLong(MessageBufferPacker out, Long value) throws IOException {
        if (value == null) {
            out.packNil();
        } else {
            out.packLong(value);
        }
    }

    private static int present(String value) {
        return value == null ? 0 : 1;
    }

    /** The engines' spelling: GPU, CPU_TIER1, CPU_TIER2; any other tier as OTHER, which reads back as itself. */
    private static String medium(Medium medium) {
        return medium.name();
    }
}
