package dev.homing.tokenizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A text cut where a tokenizer's added tokens ({@code <|im_start|>}, {@code <|im_end|>}, ...) occur, as HuggingFace's
 * tokenizers cut it before anything else runs: each added token becomes its own id, and each piece between them is
 * normalized, pre-tokenized and modelled alone. So a piece's ids do not depend on its neighbours, and the ids of a
 * chat are its pieces' ids joined; this is what lets {@link SegmentCache} keep a system prompt's or an earlier turn's
 * ids. Where a tokenizer's files say the pieces may not be independent, {@link #of} gives none and the text is
 * encoded whole.
 */
final class AddedTokenSplit {

    /** An added token's text and id. */
    record AddedToken(String content, int id) {
    }

    /** Receives a text's pieces in order: the text between added tokens, and each added token's id; false stops. */
    interface Pieces {
        boolean text(String piece);

        boolean addedToken(AddedToken token);
    }

    /** Per first character, the added tokens starting with it, longest first (the tokenizers take the longest). */
    private final Map<Character, AddedToken[]> byFirstChar;
    /** The first characters of added tokens: a long text is scanned without boxing each of its characters. */
    private final BitSet firstChars = new BitSet(Character.MAX_VALUE + 1);
    private final List<AddedToken> tokens;

    private AddedTokenSplit(List<AddedToken> tokens) {
        this.tokens = List.copyOf(tokens);
        Map<Character, List<AddedToken>> grouped = new HashMap<>();
        for (AddedToken token : tokens) {
            grouped.computeIfAbsent(token.content().charAt(0), c -> new ArrayList<>()).add(token);
        }
        byFirstChar = new HashMap<>();
        grouped.forEach((first, list) -> {
            AddedToken[] sorted = list.toArray(AddedToken[]::new);
            Arrays.sort(sorted, Comparator.comparingInt((AddedToken t) -> t.content().length()).reversed());
            byFirstChar.put(first, sorted);
            firstChars.set(first);
        });
    }

    /**
     * The split {@code tokenizerJson} (a parsed {@code tokenizer.json}) makes, or null when its pieces may depend on
     * each other and only whole-text encoding is exact: an added token that strips the spaces beside it, matches
     * only whole words or is matched after normalization; a Metaspace pre-tokenizer that marks the first piece of a
     * text alone; a model with dropout (not deterministic).
     */
    static AddedTokenSplit of(JsonNode tokenizerJson) {
        boolean hasNormalizer = !tokenizerJson.path("normalizer").isNull()
            && !tokenizerJson.path("normalizer").isMissingNode();
        List<AddedToken> tokens = new ArrayList<>();
        for (JsonNode added : tokenizerJson.path("added_tokens")) {
            String content = added.path("content").asString("");
            if (content.isEmpty() || added.path("lstrip").asBoolean(false) || added.path("rstrip").asBoolean(false)
                || added.path("single_word").asBoolean(false)
                || (hasNormalizer && added.path("normalized").asBoolean(!added.path("special").asBoolean(false)))) {
                return null;
            }
            tokens.add(new AddedToken(content, added.path("id").asInt(-1)));
        }
        if (marksFirstPiece(tokenizerJson.path("pre_tokenizer"))) {
            return null;
        }
        JsonNode dropout = tokenizerJson.path("model").path("dropout");
        if (dropout.isNumber() && dropout.asDouble(0) > 0) {
            return null;
        }
        return new AddedTokenSplit(tokens);
    }

    /** A Metaspace pre-tokenizer (alone or in a sequence) that prepends its space only to a text's first piece. */
    private static boolean marksFirstPiece(JsonNode preTokenizer) {
        if ("Metaspace".equals(preTokenizer.path("type").asString(""))) {
            return "first".equals(preTokenizer.path("prepend_scheme").asString(""));
        }
        for (JsonNode inner : preTokenizer.path("pretokenizers")) {
            if (marksFirstPiece(inner)) {
                return true;
            }
        }
        return false;
    }

    List<AddedToken> tokens() {
        return tokens;
    }

    /**
     * Cuts {@code text} at its added tokens, leftmost first and longest at one place, as the tokenizers do; returns
     * false when {@code pieces} stopped it.
     */
    boolean split(String text, Pieces pieces) {
        int start = 0;
        int i = 0;
        int length = text.length();
        while (i < length) {
            AddedToken[] candidates = firstChars.get(text.charAt(i)) ? byFirstChar.get(text.charAt(i)) : null;
            AddedToken found = null;
            if (candidates != null) {
                for (AddedToken candidate : candidates) {
                    if (text.startsWith(candidate.content(), i)) {
                        found = candidate;
                        break;
                    }
                }
            }
            if (found == null) {
                i++;
                continue;
            }
            if ((i > start && !pieces.text(text.substring(start, i))) || !pieces.addedToken(found)) {
                return false;
            }
            i += found.content().length();
            start = i;
        }
        return start >= length || pieces.text(start == 0 ? text : text.substring(start));
    }
}
