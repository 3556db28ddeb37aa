package dev.homing.tokenizer;

import tools.jackson.databind.JsonNode;

/**
 * Cuts a long text between two words, where the tokenizer's pre-tokenizer cuts it anyway, so each chunk can be
 * encoded alone (and kept in the piece cache) and the ids joined are those of the text encoded whole.
 *
 * <p>A cut goes before a space that has an ASCII letter on each side ({@code "a| b"}). Every pre-tokenizer this
 * class accepts (see {@link #of}) ends a word at such a space and starts the next word with it, so no pre-token
 * spans the cut. Where to cut is chosen by the text itself (a hash of the characters before the space), not by the
 * position: two prompts that share a long prefix, a conversation's turns, are cut alike up to near where they part,
 * and the chunks of the shared part are found in the cache. Chunks are {@link #MIN_CHARS} characters or more, and a
 * cut is forced at the first place allowed past {@link #MAX_CHARS}.
 */
final class WordCuts {

    /** The shortest chunk: a cache entry and a native call per chunk cost about what encoding a few words does. */
    static final int MIN_CHARS = 512;
    /** Past this a chunk ends at the next place allowed, whatever the hash says. */
    static final int MAX_CHARS = 4 * 1024;
    /** One candidate place in 16 is chosen: chunks of about 600 characters on English-like text. */
    private static final int CHOOSE_MASK = 15;
    /** Characters before a candidate place that choose it. */
    private static final int CONTEXT_CHARS = 16;

    /** Receives a text's chunks in order; returns false to stop there. */
    interface Chunks {
        boolean chunk(String text);
    }

    private final int minChars;
    private final boolean everyPlace;

    private WordCuts(int minChars, boolean everyPlace) {
        this.minChars = minChars;
        this.everyPlace = everyPlace;
    }

    /** Cuts of the usual size. */
    static final WordCuts CHUNKS = new WordCuts(MIN_CHARS, false);
    /** A cut at every place allowed: the hardest test of a tokenizer's promise, for the probe at load. */
    static final WordCuts EVERY_PLACE = new WordCuts(1, true);

    /**
     * Whether {@code tokenizerJson} promises that a text cut at these places encodes as the whole: a byte-level BPE
     * or a word-level model after a pre-tokenizer that splits on words (byte-level with its regex; a regex split
     * followed by byte-level; whitespace or BERT splitting), a normalizer that changes characters one by one at most
     * (Unicode forms, lower case), and no dropout. Metaspace (SentencePiece) tokenizers mark a text's start, and
     * their pieces would differ; they are encoded whole.
     */
    static boolean promised(JsonNode tokenizerJson) {
        JsonNode dropout = tokenizerJson.path("model").path("dropout");
        return splitsWords(tokenizerJson.path("pre_tokenizer"), true)
            && charWise(tokenizerJson.path("normalizer"))
            && !(dropout.isNumber() && dropout.asDouble(0) > 0);
    }

    private static boolean splitsWords(JsonNode preTokenizer, boolean alone) {
        return switch (preTokenizer.path("type").asString("")) {
            case "ByteLevel" -> !alone || preTokenizer.path("use_regex").asBoolean(true);
            case "Split", "Digits", "Punctuation" -> !alone;
            case "Whitespace", "WhitespaceSplit", "BertPreTokenizer" -> true;
            case "Sequence" -> {
                boolean splits = false;
                for (JsonNode inner : preTokenizer.path("pretokenizers")) {
                    if (!splitsWords(inner, false)) {
                        yield false;
                    }
                    splits |= splitsWords(inner, true) || "Split".equals(inner.path("type").asString(""));
                }
                yield splits;
            }
            default -> false;
        };
    }

    private static boolean charWise(JsonNode normalizer) {
        if (normalizer.isMissingNode() || normalizer.isNull()) {
            return true;
        }
        return switch (normalizer.path("type").asString("")) {
            case "NFC", "NFD", "NFKC", "NFKD", "Lowercase" -> true;
            case "Sequence" -> {
                for (JsonNode inner : normalizer.path("normalizers")) {
                    if (!charWise(inner)) {
                        yield false;
                    }
                }
                yield true;
            }
            default -> false;
        };
    }

    /**
     * Hands {@code text}'s chunks to {@code chunks} in order, the whole text as one chunk when it is short; returns
     * false when {@code chunks} stopped it.
     */
    boolean cut(String text, Chunks chunks) {
        int length = text.length();
        int start = 0;
        for (int i = start + minChars; i < length - 1; i++) {
            if (text.charAt(i) != ' ' || !asciiLetter(text.charAt(i - 1)) || !asciiLetter(text.charAt(i + 1))) {
                continue;
            }
            if (everyPlace || i - start >= MAX_CHARS || chosen(text, i)) {
                if (!chunks.chunk(text.substring(start, i))) {
                    return false;
                }
                start = i;
                i = start + minChars - 1;
            }
        }
        return chunks.chunk(start == 0 ? text : text.substring(start));
    }

    private static boolean chosen(String text, int place) {
        int hash = 0;
        for (int i = Math.max(0, place - CONTEXT_CHARS); i < place; i++) {
            hash = 31 * hash + text.charAt(i);
        }
        hash ^= hash >>> 16;
        hash *= 0x45d9f3b;
        hash ^= hash >>> 16;
        return (hash & CHOOSE_MASK) == 0;
    }

    private static boolean asciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
}
