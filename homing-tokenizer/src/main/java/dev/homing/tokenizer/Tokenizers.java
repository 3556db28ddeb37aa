package dev.homing.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Opens the tokenizer a {@code --tokenizer-path} names. */
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
        if (DEMO.equals(pathOrDemo)) {
            return demo();
        }
        return HuggingFaceTokenizer.load(Path.of(pathOrDemo));
    }

    /** The bundled demo tokenizer. */
    public static HuggingFaceTokenizer demo() {
        try (InputStream tokenizer = resource("tokenizer.json"); InputStream config = resource("tokenizer_config.json")) {
            return HuggingFaceTokenizer.load(tokenizer, TokenizerConfig.read(config, "the demo tokenizer_config.json"),
                DEMO);
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
