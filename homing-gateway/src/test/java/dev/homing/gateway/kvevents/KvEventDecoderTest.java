package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEvent.BlockRemoved;
import dev.homing.core.kv.KvEvent.BlockStored;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.Medium;
import dev.homing.core.kv.TokenBlocks;
import dev.homing.gateway.kvevents.KvEventDecoder.ArrayLayout;
import org.junit.jupiter.api.Test;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

/**
 * Fixtures written from the engines' published event schema (msgspec structs: a tagged struct is a map with a
 * {@code type} key, or with {@code array_like} a positional array whose first element is the tag; fields left at
 * their default are omitted, trailing ones in the array form), built with msgpack-core's packer.
 */
class KvEventDecoderTest {

    private final KvEventDecoder vllm = new KvEventDecoder(ArrayLayout.VLLM);
    private final KvEventDecoder sglang = new KvEventDecoder(ArrayLayout.SGLANG);

    /** A payload written by {@code body}. */
    private interface Body {
        void write(MessageBufferPacker p) throws IOException;
    }

    private static byte[] pack(Body body) throws IOException {
        try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
            body.write(p);
            return p.toByteArray();
        }
    }

    private static void longs(MessageBufferPacker p, long... values) throws IOException {
        p.packArrayHeader(values.length);
        for (long v : values) {
            p.packLong(v);
        }
    }

    private static void ints(MessageBufferPacker p, int... values) throws IOException {
        p.packArrayHeader(values.length);
        for (int v : values) {
            p.packInt(v);
        }
    }

    /** A {@code BlockRemoved} event as a tagged map: its hashes and its medium. */
    private static void blockRemoved(MessageBufferPacker p, String medium, long... hashes) throws IOException {
        p.packMapHeader(3);
        p.packString("type").packString("BlockRemoved");
        p.packString("block_hashes");
        longs(p, hashes);
        p.packString("medium").packString(medium);
    }

    private static int[] tokens(int from, int to) {
        return IntStream.range(from, to).toArray();
    }

    /** Current vLLM: the batch a struct, its events tagged maps; one 16-token block with an unsigned 64-bit hash. */
    private static byte[] vllmMapBatch(BigInteger hash, int[] tokens) throws IOException {
        return pack(p -> {
            p.packMapHeader(3);
            p.packString("ts").packDouble(1767225600.25);
            p.packString("events").packArrayHeader(1);
            p.packMapHeader(10);
            p.packString("type").packString("BlockStored");
            p.packString("block_hashes").packArrayHeader(1).packBigInteger(hash);
            p.packString("parent_block_hash").packNil();
            p.packString("token_ids");
            ints(p, tokens);
            p.packString("block_size").packInt(16);
            p.packString("lora_id").packNil();
            p.packString("medium").packString("GPU");
            p.packString("lora_name").packNil();
            p.packString("group_idx").packInt(0);
            p.packString("kv_cache_spec_kind").packString("full_attention");
            p.packString("data_parallel_rank").packInt(1);
        });
    }

    @Test
    void readsCurrentVllmBatchesWithUnsignedHashes() throws Exception {
        BigInteger hash = new BigInteger("18446744073709551557"); // above 2^63

        KvEventBatch batch = vllm.decode(vllmMapBatch(hash, tokens(0, 16)));

        assertThat(batch.timestamp()).isEqualTo(1767225600.25);
        assertThat(batch.dpRank()).hasValue(1);
        assertThat(batch.skippedEvents()).isZero();
        BlockStored stored = (BlockStored) batch.events().getFirst();
        assertThat(stored.blockHashes()).containsExactly(hash.longValue());
        assertThat(stored.parentHash()).isNull();
        assertThat(stored.tokenIds()).containsExactly(tokens(0, 16));
        assertThat(stored.blockSize()).isEqualTo(16);
        assertThat(stored.medium()).isEqualTo(Medium.GPU);
        assertThat(stored.namespace()).isEqualTo(KvNamespace.DEFAULT);
    }

    @Test
    void readsTheBatchAsAPositionalArrayToo() throws Exception {
        byte[] payload = pack(p -> {
            p.packArrayHeader(3).packDouble(12.5).packArrayHeader(1);
            blockRemoved(p, "GPU", -5, 7);
            p.packInt(0);
        });

        KvEventBatch batch = vllm.decode(payload);

        assertThat(batch.dpRank()).hasValue(0);
        BlockRemoved removed = (BlockRemoved) batch.events().getFirst();
        assertThat(removed.blockHashes()).containsExactly(-5, 7);
    }

    @Test
    void aBatchWithoutItsRankHasNone() throws Exception {
        byte[] payload = pack(p -> p.packArrayHeader(2).packDouble(1.0).packArrayHeader(0));

        assertThat(vllm.decode(payload).dpRank()).isEmpty();
    }

    @Test
    void readsOlderVllmPositionalEvents() throws Exception {
        byte[] payload = pack(p -> {
            p.packArrayHeader(2).packDouble(3.0).packArrayHeader(3);
            // The first events' five fields, before medium existed.
            p.packArrayHeader(6).packString("BlockStored");
            longs(p, 11);
            p.packNil();
            ints(p, tokens(0, 16));
            p.packInt(16).packNil();
            // With medium, LoRA name, extra keys and group index.
            p.packArrayHeader(10).packString("BlockStored");
            longs(p, 12);
            p.packLong(11);
            ints(p, tokens(16, 32));
            p.packInt(16).packInt(3).packString("GPU").packString("my-adapter");
            p.packArrayHeader(1).packNil();
            p.packInt(0);
            p.packArrayHeader(1).packString("AllBlocksCleared");
        });

        KvEventBatch batch = vllm.decode(payload);

        BlockStored first = (BlockStored) batch.events().get(0);
        BlockStored second = (BlockStored) batch.events().get(1);
        assertThat(first.medium()).isEqualTo(Medium.GPU);
        assertThat(first.loraId()).isNull();
        assertThat(second.parentHash()).isEqualTo(11L);
        assertThat(second.loraId()).isEqualTo(3L);
        assertThat(second.loraName()).isEqualTo("my-adapter");
        assertThat(second.namespace()).isEqualTo(KvNamespace.of("my-adapter", null));
        assertThat(batch.events().get(2)).isInstanceOf(KvEvent.AllBlocksCleared.class);
    }

    @Test
    void readsHashesSentAsBytesAsTheirLow64Bits() throws Exception {
        byte[] digest = new byte[32];
        Arrays.fill(digest, (byte) 0x11);
        digest[24] = (byte) 0x80;
        digest[31] = 0x01;
        byte[] payload = pack(p -> {
            p.packArrayHeader(2).packDouble(0).packArrayHeader(1);
            p.packMapHeader(3);
            p.packString("type").packString("BlockRemoved");
            p.packString("block_hashes").packArrayHeader(1).packBinaryHeader(32).writePayload(digest);
            p.packString("medium").packNil();
        });

        BlockRemoved removed = (BlockRemoved) vllm.decode(payload).events().getFirst();

        assertThat(removed.blockHashes()).containsExactly(0x8011_1111_1111_1101L);
        assertThat(removed.medium()).isEqualTo(Medium.GPU);
    }

    @Test
    void readsCurrentSglangEventsWithTheirTierSaltAndSession() throws Exception {
        byte[] payload = pack(p -> {
            p.packArrayHeader(3).packDouble(5.0).packArrayHeader(2);
            p.packMapHeader(8);
            p.packString("type").packString("BlockStored");
            p.packString("block_hashes");
            longs(p, -7_000_000_000_000_000_000L);
            p.packString("parent_block_hash").packLong(42);
            p.packString("token_ids");
            ints(p, 9);
            p.packString("block_size").packInt(1);
            p.packString("medium").packString("CPU_TIER1");
            p.packString("cache_salt").packString("tenant-a");
            p.packString("session_id").packString("s-1");
            blockRemoved(p, "CPU_TIER2", 42);
            p.packInt(2);
        });

        KvEventBatch batch = sglang.decode(payload);

        assertThat(batch.dpRank()).hasValue(2);
        BlockStored stored = (BlockStored) batch.events().get(0);
        assertThat(stored.medium()).isEqualTo(Medium.CPU_TIER1);
        assertThat(stored.cacheSalt()).isEqualTo("tenant-a");
        assertThat(stored.parentHash()).isEqualTo(42L);
        assertThat(((BlockRemoved) batch.events().get(1)).medium()).isEqualTo(Medium.CPU_TIER2);
    }

    @Test
    void readsOlderSglangPositionalEventsWithTheSaltWhereVllmHasTheLoraName() throws Exception {
        byte[] payload = pack(p -> {
            p.packArrayHeader(2).packDouble(5.0).packArrayHeader(2);
            p.packArrayHeader(8).packString("BlockStored");
            longs(p, 1, 2);
            p.packNil();
            ints(p, 5, 6);
            p.packInt(1).packNil().packString("GPU").packString("tenant-b");
            p.packArrayHeader(3).packString("BlockRemoved");
            longs(p, 2);
            p.packString("GPU");
        });

        KvEventBatch batch = sglang.decode(payload);

        BlockStored stored = (BlockStored) batch.events().get(0);
        assertThat(stored.cacheSalt()).isEqualTo("tenant-b");
        assertThat(stored.loraName()).isNull();
        assertThat(((BlockRemoved) batch.events().get(1)).blockHashes()).containsExactly(2);
    }

    @Test
    void unknownEventTypesAreSkippedAndCountedInBothForms() throws Exception {
        byte[] payload = pack(p -> {
            p.packArrayHeader(2).packDouble(5.0).packArrayHeader(3);
            p.packMapHeader(2).packString("type").packString("BlockPinned").packString("pins").packArrayHeader(0);
            p.packArrayHeader(2).packString("TierMoved").packInt(4);
            p.packMapHeader(2).packString("type").packString("AllBlocksCleared").packString("why").packString("reset");
        });

        KvEventBatch batch = vllm.decode(payload);

        assertThat(batch.skippedEvents()).isEqualTo(2);
        assertThat(batch.events()).containsExactly(new KvEvent.AllBlocksCleared());
    }

    @Test
    void bothEnginesEventsForTheSameTokensGiveTheSameView() throws Exception {
        int[] prompt = tokens(100, 140);
        ExactKvIndex index = new ExactKvIndex(new TokenBlocks(16), 10_000);
        for (KvEvent event : vllm.decode(vllmMapBatch(BigInteger.valueOf(77), Arrays.copyOf(prompt, 16))).events()) {
            index.apply("vllm", event);
        }
        for (int i = 0; i < 20; i++) {
            int at = i;
            byte[] page = pack(p -> {
                p.packArrayHeader(2).packDouble(at).packArrayHeader(1);
                p.packArrayHeader(7).packString("BlockStored");
                longs(p, 1_000 + at);
                if (at == 0) {
                    p.packNil();
                } else {
                    p.packLong(1_000 + at - 1);
                }
                ints(p, prompt[at]);
                p.packInt(1).packNil().packString("GPU");
            });
            for (KvEvent event : sglang.decode(page).events()) {
                index.apply("sglang", event);
            }
        }

        assertThat(index.match(prompt, KvNamespace.DEFAULT).blocksByWorker())
                .containsEntry("vllm", 1).containsEntry("sglang", 1);
    }

    @Test
    void malformedPayloadsAreRefusedWithAClearError() throws Exception {
        assertRefused(new byte[0], "ends early");
        assertRefused(pack(p -> p.packString("hello")), "array or a map");
        assertRefused(pack(p -> p.packArrayHeader(1).packDouble(1)), "elements");
        assertRefused(pack(p -> p.packMapHeader(1).packString("ts").packDouble(1)), "without events");
        assertRefused(pack(p -> p.packArrayHeader(2).packDouble(1).packArrayHeader(0).packInt(9)), "after the batch");
        assertRefused(pack(p -> p.packArrayHeader(2).packString("now").packArrayHeader(0)), "not a number");
        assertRefused(pack(p -> p.packArrayHeader(2).packDouble(1).packArrayHeader(1).packInt(3)), "neither");
        assertRefused(pack(p -> {
            p.packArrayHeader(2).packDouble(1).packArrayHeader(1);
            p.packMapHeader(1).packString("block_hashes").packArrayHeader(0);
        }), "without a type");
        assertRefused(pack(p -> {
            p.packArrayHeader(2).packDouble(1).packArrayHeader(1);
            p.packArrayHeader(5).packString("BlockStored");
            longs(p, 1);
            p.packNil();
            ints(p, 1, 2, 3);
            p.packInt(16);
        }), "carries 3 tokens");
        assertRefused(pack(p -> {
            p.packArrayHeader(2).packDouble(1).packArrayHeader(1);
            p.packMapHeader(2).packString("type").packString("BlockRemoved");
            p.packString("block_hashes").packArrayHeader(1).packString("beef");
        }), "integer or bytes");
        // An array declaring four billion tokens in a few bytes: refused before anything is allocated.
        byte[] huge = pack(p -> {
            p.packArrayHeader(2).packDouble(1).packArrayHeader(1);
            p.packArrayHeader(5).packString("BlockStored");
            longs(p, 1);
            p.packNil();
            p.packArrayHeader(Integer.MAX_VALUE);
        });
        assertRefused(huge, "declares");
        // A truncated batch, cut in the middle of an event.
        byte[] whole = vllmMapBatch(BigInteger.ONE, tokens(0, 16));
        assertRefused(Arrays.copyOf(whole, whole.length / 2), "");
    }

    @Test
    void noPayloadMakesTheDecoderThrowAnythingButItsOwnException() throws Exception {
        Random random = new Random(39);
        byte[] valid = vllmMapBatch(BigInteger.TEN, tokens(0, 16));
        for (int round = 0; round < 5_000; round++) {
            boolean noise = random.nextBoolean();
            byte[] payload = noise ? new byte[random.nextInt(64)] : valid.clone();
            if (noise) {
                random.nextBytes(payload);
            }
            for (int flips = random.nextInt(4); flips >= 0 && payload.length > 0; flips--) {
                payload[random.nextInt(payload.length)] = (byte) random.nextInt(256);
            }
            try {
                vllm.decode(payload);
                sglang.decode(payload);
            } catch (KvEventFormatException expected) {
                // refused: the only way a payload may fail
            } catch (RuntimeException | Error e) {
                fail("round " + round + " threw " + e + " for " + Arrays.toString(payload));
            }
        }
    }

    private void assertRefused(byte[] payload, String message) {
        assertThatThrownBy(() -> vllm.decode(payload)).isInstanceOf(KvEventFormatException.class)
                .hasMessageContaining(message);
    }
}
