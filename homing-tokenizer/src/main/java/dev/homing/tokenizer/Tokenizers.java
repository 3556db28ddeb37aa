package dev.homing.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Opens the tokenizer a {@code --tokenizer-path} names, with the template a {@code --chat-template} names. */
public final class Tokenizers {
    /** The name of the bundled demo tokenizer. */
    public static final String DEMO = "demo";
    private static final String DEMO_RESOURCES = "demo/";

    private Tokenizers() {
    }

    /**
     * {@value #DEMO}: the bundled demo tokenizer (a byte-level BPE trained on the simulated engine's pseudo-words,
     * with a ChatML template); anything else: a directory holding {@code tokenizer.json} or that file itself.
     *
     * @throws IllegalArgumentException when there is no tokenizer there
     */
    public static HuggingFaceTokenizer open(String pathOrDemo) {
        return open(pathOrDemo, null);
    }

    /**
     * {@link #open(String)}, with the Jinja chat template in {@code chatTemplate} in place of the tokenizer's own
     * (null keeps it), as an engine's {@code --chat-template} replaces its model's.
     *
     * @throws IllegalArgumentException when there is no tokenizer there, or the template cannot be read or parsed
     */
    public static HuggingFaceTokenizer open(String pathOrDemo, Path chatTemplate) {
        if (DEMO.equals(pathOrDemo)) {
            return demo(chatTemplate);
        }
        return HuggingFaceTokenizer.load(Path.of(pathOrDemo), chatTemplate);
    }

    /** The bundled demo tokenizer. */
    public static HuggingFaceTokenizer demo() {
        return demo(null);
    }

    private static HuggingFaceTokenizer demo(Path chatTemplate) {
        try (InputStream tokenizer = resource("tokenizer.json"); InputStream config = resource("tokenizer_config.json")) {
            TokenizerConfig read = TokenizerConfig.read(config, "the demo tokenizer_config.json");
            return HuggingFaceTokenizer.load(tokenizer, chatTemplate == null ? read
                : read.withChatTemplateFile(chatTemplate), DEMO);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the demo tokenizer", e);
        }
    }

    private static InputStream resource(String file) throws IOException {
        InputStream in = Tokenizers.class.getResourceAsStream(DEMO_RESOURCES + file);
        if (in == null) {
            throw new IOException("the demo tokenizer's " + file + " is missing from the class path");
        }
        return in;
    }
}
