package dev.homing.tokenizer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The ids of recently encoded texts, least recently used evicted first: pieces of text (see
 * {@link AddedTokenSplit}), so a system prompt, a conversation's earlier turns and the template's own pieces are
 * encoded once, or whole chats by a key of their turns. Bounded in 4-byte units: an id, or two characters of a text
 * kept as a key (one more an entry); an entry larger than an eighth of the bound is encoded each time rather than
 * evicting everything else. One lock: a look-up holds it for a hash and two links, far less than the encoding it saves.
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
        if (weight(piece, ids) > maxTokens / 8) {
            return ids;
        }
        synchronized (pieces) {
            if (pieces.putIfAbsent(piece, ids) == null) {
                tokens += weight(piece, ids);
                var eldest = pieces.entrySet().iterator();
                while (tokens > maxTokens && eldest.hasNext()) {
                    Map.Entry<String, int[]> entry = eldest.next();
                    tokens -= weight(entry.getKey(), entry.getValue());
                    eldest.remove();
                }
            }
        }
        return ids;
    }

    /** Its ids and its text's characters in 4-byte units, plus one, so that a piece of no ids counts too. */
    private static long weight(String piece, int[] ids) {
        return ids.length + piece.length() / 2 + 1L;
    }

    /** The units kept, over every entry. */
    long tokens() {
        synchronized (pieces) {
            return tokens;
        }
    }
}
