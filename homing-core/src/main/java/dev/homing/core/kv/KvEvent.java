package dev.homing.core.kv;

import java.util.Arrays;

/**
 * One change to an engine's KV cache, as SGLang and vLLM publish it, whatever its wire form. Block hashes are the
 * engine's own, normalised to 64 bits ({@code gateway.kvevents} turns an unsigned integer or a byte string into a
 * {@code long}); they are handles for removals only, never compared with the gateway's own hashes.
 */
public sealed interface KvEvent {

    /**
     * The engine stored {@code blockHashes.length} consecutive blocks of {@code blockSize} tokens each, holding
     * {@code tokenIds} in order, the first one after the block {@code parentHash} ({@code null}: at the root).
     *
     * @param loraName  the adapter whose cache this is, or null for the base model
     * @param loraId    the adapter's number (vLLM's deprecated field), or null
     * @param cacheSalt the salt that isolates these blocks from other tenants' (SGLang), or null
     * @param groupIdx  the KV cache group (vLLM's hybrid models have several), 0 when absent
     */
    record BlockStored(long[] blockHashes, Long parentHash, int[] tokenIds, int blockSize, String loraName,
                       Long loraId, Medium medium, String cacheSalt, int groupIdx) implements KvEvent {

        public BlockStored {
            if (blockSize <= 0) {
                throw new IllegalArgumentException("a block holds at least one token, got " + blockSize);
            }
            if ((long) blockHashes.length * blockSize != tokenIds.length) {
                throw new IllegalArgumentException(blockHashes.length + " blocks of " + blockSize
                        + " tokens cannot hold " + tokenIds.length + " tokens");
            }
        }

        /** The cache these blocks belong to: blocks of different namespaces never share a prefix. */
        public KvNamespace namespace() {
            return KvNamespace.of(loraName != null ? loraName : loraId != null ? "#" + loraId : null, cacheSalt);
        }

        @Override
        public String toString() {
            return "BlockStored" + Arrays.toString(blockHashes) + " after " + parentHash + ", " + tokenIds.length
                    + " tokens in blocks of " + blockSize + " on " + medium;
        }
    }

    /** The engine evicted these blocks from {@code medium}. */
    record BlockRemoved(long[] blockHashes, Medium medium, int groupIdx) implements KvEvent {

        @Override
        public String toString() {
            return "BlockRemoved" + Arrays.toString(blockHashes) + " from " + medium;
        }
    }

    /** The engine dropped its whole cache (a flush, a reset). */
    record AllBlocksCleared() implements KvEvent {
    }
}
