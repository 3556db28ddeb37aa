package dev.homing.tokenizer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The ids of recently encoded pieces of text (see {@link AddedTokenSplit}), least recently used evicted first, so a
 * system prompt, a conversation's earlier turns and the template's own pieces are encoded once. Bounded by the ids it
 * holds (one more a piece); a piece larger than an eighth of the bound is encoded each time rather than evicting
 * everything else. One lock: a look-up holds it for a hash and two links, far less than the encoding it saves.
 */
final class SegmentCache {
    private final long maxTokens;
    private final LinkedHashMap<String, int[]> pieces = new LinkedHashMap<>(256, 0.75f, true);
    private long tokens;

    SegmentCache(long maxTokens) {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be positive, got " + maxTokens);
        }
        this.maxTokens = maxTokens;
    }

    /** The ids of {@code piece}: the ones kept, else {@code encode}'s, kept for next time. Callers must not change them. */
    int[] ids(String piece, Function<String, int[]> encode) {
        synchronized (pieces) {
            int[] kept = pieces.get(piece);
            if (kept != null) {
                return kept;
            }
        }
        int[] ids = encode.apply(piece);
        if (weight(ids) > maxTokens / 8) {
            return ids;
        }
        synchronized (pieces) {
            if (pieces.putIfAbsent(piece, ids) == null) {
                tokens += weight(ids);
                var eldest = pieces.entrySet().iterator();
                while (tokens > maxTokens && eldest.hasNext()) {
                    Map.Entry<String, int[]> entry = eldest.next();
                    tokens -= weight(entry.getValue());
                    eldest.remove();
                }
            }
        }
        return ids;
    }

    /** One more than its ids, so that pieces of no ids (a normalizer may erase one) count too. */
    private static long weight(int[] ids) {
        return ids.length + 1L;
    }

    /** The ids kept, over every piece, plus one a piece. */
    long tokens() {
        synchronized (pieces) {
            return tokens;
        }
    }
}
