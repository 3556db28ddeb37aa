package dev.homing.tokenizer;

import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * An engine's own tokenizer from HuggingFace files: {@code tokenizer.json} run by HuggingFace's Rust tokenizers
 * (through DJL), and the chat template, BOS and EOS tokens of the files beside it ({@link TokenizerConfig}). Truncation
 * and padding are off: a prompt is counted whole, as the engine counts it before refusing one too long. Thread-safe;
 * close it to free the native tokenizer.
 */
public final class HuggingFaceTokenizer implements PromptTokenizer, AutoCloseable {
    static {
        DjlTracking.optOut();
    }

    /** Truncation and padding off; nothing else, so DJL leaves the text itself as it is (see encodeText). */
    static final Map<String, String> OPTIONS = Map.of("truncation", "false", "padding", "false");
    /** Ids and text the piece cache keeps over all pieces, in 4-byte units: 16 MB, thousands of prompts and turns. */
    static final long PIECE_CACHE_TOKENS = 4L << 20;
    /** Ids and text the chat cache keeps, in 4-byte units: 4 MB, thousands of short chats. */
    static final long CHAT_CACHE_TOKENS = 1L << 20;
    /**
     * Chats with more text than this are not kept whole: the template's render, which the chat cache saves, is a
     * short chat's main cost; a long one's is encoding its new turn, which the piece cache already bounds.
     */
    static final int MAX_CACHED_CHAT_CHARS = 4 * 1024;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final ai.djl.huggingface.tokenizers.HuggingFaceTokenizer tokenizer;
    private final JinjaChatTemplate template;
    private final String name;
    /** How a chat's text is cut into independently encoded pieces, or null when only whole-text encoding is exact. */
    private final AddedTokenSplit split;
    /** How a long piece is cut further, between words, or null where the tokenizer does not promise it is exact. */
    private final WordCuts words;
    /** The ids the tokenizer adds around a raw prompt (its BOS), or null when they could not be told apart. */
    private final SpecialTokens special;
    private final SegmentCache pieces = new SegmentCache(PIECE_CACHE_TOKENS);
    private final SegmentCache chats = new SegmentCache(CHAT_CACHE_TOKENS);

    private HuggingFaceTokenizer(byte[] tokenizerJson, TokenizerConfig config, String name) {
        this.tokenizer = newDjlTokenizer(new ByteArrayInputStream(tokenizerJson), name);
        this.template = config.template();
        this.name = name;
        tools.jackson.databind.JsonNode json = parse(tokenizerJson, name);
        this.split = checked(AddedTokenSplit.of(json));
        this.words = split != null && WordCuts.promised(json) && wordCutsHold() ? WordCuts.CHUNKS : null;
        this.special = SpecialTokens.find(this::encodeWhole);
    }

    /**
     * Loads a directory holding {@code tokenizer.json} (and, optionally, {@code tokenizer_config.json} and
     * {@code chat_template.jinja}), or a {@code tokenizer.json} file itself (then the files beside it are read too).
     *
     * @throws IllegalArgumentException when the files are missing or are not a tokenizer, saying which and why
     */
    public static HuggingFaceTokenizer load(Path path) {
        return load(path, null);
    }

    /**
     * {@link #load(Path)}, with the chat template in {@code chatTemplate} (a Jinja file) in place of the tokenizer's
     * own; null keeps the tokenizer's.
     *
     * @throws IllegalArgumentException also when that template cannot be read or does not parse
     */
    public static HuggingFaceTokenizer load(Path path, Path chatTemplate) {
        Path file = Files.isDirectory(path) ? path.resolve("tokenizer.json") : path;
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no tokenizer.json at " + path);
        }
        TokenizerConfig config = TokenizerConfig.besides(file);
        if (chatTemplate != null) {
            config = config.withChatTemplateFile(chatTemplate);
        }
        try {
            return new HuggingFaceTokenizer(Files.readAllBytes(file), config, path.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** A tokenizer from a {@code tokenizer.json} stream and its parsed configuration. */
    static HuggingFaceTokenizer load(InputStream tokenizerJson, TokenizerConfig config, String name) {
        try {
            return new HuggingFaceTokenizer(tokenizerJson.readAllBytes(), config, name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }

    private static tools.jackson.databind.JsonNode parse(byte[] tokenizerJson, String what) {
        try {
            return JSON.readTree(tokenizerJson);
        } catch (JacksonException e) {
            throw new IllegalArgumentException(what + " is not a tokenizer: " + e.getOriginalMessage(), e);
        }
    }

    private static ai.djl.huggingface.tokenizers.HuggingFaceTokenizer newDjlTokenizer(InputStream in, String what) {
        try {
            return ai.djl.huggingface.tokenizers.HuggingFaceTokenizer.newInstance(in, OPTIONS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + what, e);
        } catch (RuntimeException e) {
            // The native library's own words: a malformed file, an unknown model type.
            throw new IllegalArgumentException(what + " is not a tokenizer: " + e.getMessage(), e);
        }
    }

    @Override
    public int[] encodeText(String text) {
        return encodeText(text, true);
    }

    /**
     * The tokens of {@code text}, with or without the special tokens the tokenizer adds (its BOS, say). A long text
     * is encoded in chunks between words, each kept in the piece cache, where the tokenizer promises the same ids.
     */
    @Override
    public int[] encodeText(String text, boolean addSpecialTokens) {
        if (text.length() <= WordCuts.MIN_CHARS || words == null || (addSpecialTokens && special == null)) {
            return encodeWhole(text, addSpecialTokens);
        }
        TokenIdBuffer ids = new TokenIdBuffer();
        inRuns(text, addSpecialTokens, run -> {
            ids.add(run);
            return true;
        });
        return ids.toArray();
    }

    /**
     * The raw prompt's ids in runs as they are encoded: the special tokens added before it, then chunk after chunk
     * (see {@link #encodeText(String, boolean)}), then any added after it.
     */
    @Override
    public double encodeTextInRuns(String text, TokenRuns runs) {
        if (text.length() <= WordCuts.MIN_CHARS || words == null || special == null) {
            runs.accept(encodeWhole(text, true));
            return 1;
        }
        return inRuns(text, true, runs);
    }

    private double inRuns(String text, boolean addSpecialTokens, TokenRuns runs) {
        RunWriter writer = new RunWriter(addSpecialTokens ? special.beforeFirst(runs) : runs);
        if (!split.split(text, writer)) {
            return writer.share(text);
        }
        if (addSpecialTokens && special.after().length > 0) {
            runs.accept(special.after());
        }
        return 1;
    }

    /**
     * The tokens of {@code text} encoded whole by the native tokenizer.
     *
     * <p>Only the ids are read from the native encoding: DJL's {@code encode} also copies out each token's text, char
     * span, type, word and masks, costing more than the encoding itself for a short prompt. DJL's own preparation of
     * the text (prefix space, lower case, accent stripping) is off with the options this tokenizer is made with, so
     * the text goes to the native tokenizer as it is, as DJL would send it.
     */
    int[] encodeWhole(String text, boolean addSpecialTokens) {
        long encoding = TokenizersLibrary.LIB.encode(tokenizer.getHandle(), text, addSpecialTokens);
        try {
            return ints(TokenizersLibrary.LIB.getTokenIds(encoding));
        } finally {
            TokenizersLibrary.LIB.deleteEncoding(encoding);
        }
    }

    @Override
    public int[] encodeChat(List<ChatTurn> turns) {
        return encodeChat(turns, true);
    }

    /**
     * The rendered chat's ids: its pieces between added tokens each encoded once and kept ({@link SegmentCache}), the
     * same ids as the text encoded whole (see {@link AddedTokenSplit}); encoded whole where the tokenizer's files do
     * not promise that. A short chat's ids are kept whole too, by its turns: the template is deterministic in them,
     * so a chat asked again is neither rendered nor split (its ids copied, so callers may change them).
     */
    @Override
    public int[] encodeChat(List<ChatTurn> turns, boolean addGenerationPrompt) {
        String key = chatKey(turns, addGenerationPrompt);
        return key == null ? renderAndEncode(turns, addGenerationPrompt)
            : chats.ids(key, k -> renderAndEncode(turns, addGenerationPrompt)).clone();
    }

    private int[] renderAndEncode(List<ChatTurn> turns, boolean addGenerationPrompt) {
        String text = template.render(turns, addGenerationPrompt);
        return split == null ? encodeWhole(text, false) : encodeByPieces(split, text, pieces);
    }

    /** The chat's ids in runs, piece by piece and chunk by chunk; a short chat's (kept whole) in one run. */
    @Override
    public double encodeChatInRuns(List<ChatTurn> turns, TokenRuns runs) {
        if (split == null || chatKey(turns, true) != null) {
            runs.accept(encodeChat(turns));
            return 1;
        }
        String text = template.render(turns, true);
        RunWriter writer = new RunWriter(runs);
        return split.split(text, writer) ? 1 : writer.share(text);
    }

    /** Hands the pieces and chunks of a text, through the piece cache, to {@code runs}, counting their characters. */
    private final class RunWriter implements AddedTokenSplit.Pieces, WordCuts.Chunks {
        private final TokenRuns runs;
        private long chars;

        RunWriter(TokenRuns runs) {
            this.runs = runs;
        }

        @Override
        public boolean text(String piece) {
            return words == null ? chunk(piece) : words.cut(piece, this);
        }

        @Override
        public boolean chunk(String text) {
            chars += text.length();
            return runs.accept(pieces.ids(text, t -> encodeWhole(t, false)));
        }

        @Override
        public boolean addedToken(AddedTokenSplit.AddedToken token) {
            chars += token.content().length();
            return runs.accept(new int[] {token.id()});
        }

        /** The share of {@code text}'s characters handed so far. */
        double share(String text) {
            return text.isEmpty() ? 1 : Math.min(1, chars / (double) text.length());
        }
    }

    /** The turns written unambiguously (each string after its length), or null for a chat too long to keep whole. */
    private static String chatKey(List<ChatTurn> turns, boolean addGenerationPrompt) {
        int chars = 0;
        for (ChatTurn turn : turns) {
            chars += turn.role().length() + turn.content().length();
        }
        if (chars > MAX_CACHED_CHAT_CHARS) {
            return null;
        }
        StringBuilder key = new StringBuilder(chars + 8 * turns.size() + 1).append(addGenerationPrompt ? '+' : '-');
        for (ChatTurn turn : turns) {
            key.append(turn.role().length()).append(':').append(turn.role())
                .append(turn.content().length()).append(':').append(turn.content());
        }
        return key.toString();
    }

    /** The ids of {@code text} (no special tokens added), piece by piece, each looked up in {@code cache} first. */
    private int[] encodeByPieces(AddedTokenSplit split, String text, SegmentCache cache) {
        TokenIdBuffer ids = new TokenIdBuffer();
        split.split(text, new AddedTokenSplit.Pieces() {
            @Override
            public boolean text(String piece) {
                return words == null ? chunk(piece) : words.cut(piece, this::chunk);
            }

            private boolean chunk(String chunk) {
                ids.add(cache.ids(chunk, p -> encodeWhole(p, false)));
                return true;
            }

            @Override
            public boolean addedToken(AddedTokenSplit.AddedToken token) {
                ids.add(token.id());
                return true;
            }
        });
        return ids.toArray();
    }

    /**
     * {@code split}, if the tokenizer agrees with it on a few texts made of each added token between plain words
     * (a quirk the files do not show turns the piece-wise path off rather than routing on wrong ids); else null.
     */
    private AddedTokenSplit checked(AddedTokenSplit split) {
        if (split == null) {
            return null;
        }
        SegmentCache probe = new SegmentCache(PIECE_CACHE_TOKENS);
        for (AddedTokenSplit.AddedToken token : split.tokens().subList(0, Math.min(32, split.tokens().size()))) {
            String text = " a" + token.content() + "user\n b " + token.content() + token.content() + "\n\n c ";
            if (!Arrays.equals(encodeByPieces(split, text, probe), encodeWhole(text, false))) {
                return null;
            }
        }
        return split;
    }

    /**
     * Whether texts cut at every place {@link WordCuts} may cut encode as the whole, on a few texts of words, numbers,
     * punctuation, other scripts and spacing: a quirk the files do not show turns the cuts off.
     */
    private boolean wordCutsHold() {
        List<String> probes = List.of(
            "The cat's 12 dogs ran, naïve café GRÜSSE ok. And then x y z\n  went  home\t tab's end",
            "abc def ghi jkl 123 4567 mno's pqr!? stu\n\nvwx yz A B C 東京 Tokyo 🚀 go go",
            "  leading spaces then words and 'quotes' \"double\" we'll they're I'm x");
        for (String text : probes) {
            List<int[]> runs = new java.util.ArrayList<>();
            WordCuts.EVERY_PLACE.cut(text, chunk -> runs.add(encodeWhole(chunk, false)));
            TokenIdBuffer joined = new TokenIdBuffer();
            runs.forEach(joined::add);
            if (!Arrays.equals(joined.toArray(), encodeWhole(text, false))) {
                return false;
            }
        }
        return true;
    }

    /** Whether long pieces are cut between words and encoded chunk by chunk: for tests and logs. */
    boolean cutsWords() {
        return words != null;
    }

    @Override
    public boolean encodesInChunks() {
        return words != null && special != null;
    }

    /** Whether chats are encoded piece by piece between added tokens (else whole): for tests and logs. */
    boolean encodesByPieces() {
        return split != null;
    }

    /** The chat's prompt text: the template applied with the generation prompt. */
    public String renderChat(List<ChatTurn> turns) {
        return template.render(turns, true);
    }

    /** The text of {@code tokens}, special tokens included. */
    public String decode(int[] tokens) {
        long[] ids = new long[tokens.length];
        for (int i = 0; i < tokens.length; i++) {
            ids[i] = tokens[i];
        }
        return tokenizer.decode(ids, false);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void close() {
        tokenizer.close();
    }

    private static int[] ints(long[] ids) {
        int[] tokens = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            tokens[i] = Math.toIntExact(ids[i]);
        }
        return tokens;
    }
}
