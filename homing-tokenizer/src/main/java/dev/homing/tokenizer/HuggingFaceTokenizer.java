package dev.homing.tokenizer;

import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * An engine's own tokenizer from HuggingFace files: {@code tokenizer.json} run by HuggingFace's Rust tokenizers
 * (through DJL), and the chat template, BOS and EOS tokens of {@code tokenizer_config.json} beside it. Truncation
 * and padding are off: a prompt is counted whole, as the engine counts it before refusing one too long. Thread-safe;
 * close it to free the native tokenizer.
 */
public final class HuggingFaceTokenizer implements PromptTokenizer, AutoCloseable {
    static {
        DjlTracking.optOut();
    }

    /** Truncation and padding off; nothing else, so DJL leaves the text itself as it is (see encodeText). */
    static final Map<String, String> OPTIONS = Map.of("truncation", "false", "padding", "false");

    private final ai.djl.huggingface.tokenizers.HuggingFaceTokenizer tokenizer;
    private final TokenizerConfig config;
    private final String name;

    private HuggingFaceTokenizer(ai.djl.huggingface.tokenizers.HuggingFaceTokenizer tokenizer, TokenizerConfig config,
                                 String name) {
        this.tokenizer = tokenizer;
        this.config = config;
        this.name = name;
    }

    /**
     * Loads a directory holding {@code tokenizer.json} (and, optionally, {@code tokenizer_config.json}), or a
     * {@code tokenizer.json} file itself (then a {@code tokenizer_config.json} beside it is read too).
     *
     * @throws IllegalArgumentException when the files are missing or are not a tokenizer, saying which and why
     */
    public static HuggingFaceTokenizer load(Path path) {
        Path file = Files.isDirectory(path) ? path.resolve("tokenizer.json") : path;
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no tokenizer.json at " + path);
        }
        Path configFile = file.resolveSibling("tokenizer_config.json");
        TokenizerConfig config = Files.isRegularFile(configFile) ? TokenizerConfig.read(configFile)
            : TokenizerConfig.NONE;
        try (InputStream in = Files.newInputStream(file)) {
            return new HuggingFaceTokenizer(newDjlTokenizer(in, file.toString()), config, path.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** A tokenizer from a {@code tokenizer.json} stream and its parsed configuration. */
    static HuggingFaceTokenizer load(InputStream tokenizerJson, TokenizerConfig config, String name) {
        return new HuggingFaceTokenizer(newDjlTokenizer(tokenizerJson, name), config, name);
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
     * The tokens of {@code text}, with or without the special tokens the tokenizer adds (its BOS, say).
     *
     * <p>Only the ids are read from the native encoding: DJL's {@code encode} also copies out each token's text, char
     * span, type, word and masks, costing more than the encoding itself for a short prompt. DJL's own preparation of
     * the text (prefix space, lower case, accent stripping) is off with the options this tokenizer is made with, so
     * the text goes to the native tokenizer as it is, as DJL would send it.
     */
    @Override
    public int[] encodeText(String text, boolean addSpecialTokens) {
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

    @Override
    public int[] encodeChat(List<ChatTurn> turns, boolean addGenerationPrompt) {
        return encodeText(config.template().render(turns, addGenerationPrompt), false);
    }

    /** The chat's prompt text: the template applied with the generation prompt. */
    public String renderChat(List<ChatTurn> turns) {
        return config.template().render(turns, true);
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
