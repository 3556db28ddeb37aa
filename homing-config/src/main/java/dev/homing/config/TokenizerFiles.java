package dev.homing.config;

import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The tokenizer the tokenizer settings name, read the same way by the gateway and the simulated engine:
 * {@code --tokenizer-path}, else the one in {@code --model-path}'s directory, with {@code --chat-template} in place of
 * its own template. Start-up checks report a flag that cannot be honoured before anything listens.
 */
public final class TokenizerFiles {

    private TokenizerFiles() {
    }

    /**
     * The tokenizer, opened (it holds native memory: close it when done), or null when no setting names one.
     *
     * @throws IllegalArgumentException when there is no tokenizer there, or its template cannot be read or parsed
     */
    public static HuggingFaceTokenizer open(Config config) {
        String path = path(config);
        if (path == null) {
            return null;
        }
        String template = config.get(Settings.CHAT_TEMPLATE);
        return Tokenizers.open(path, template == null ? null : Path.of(template));
    }

    /** Where the tokenizer is: {@code --tokenizer-path}, else {@code --model-path}, else null. */
    private static String path(Config config) {
        String path = config.get(Settings.TOKENIZER_PATH);
        return path != null ? path : config.get(Settings.MODEL_PATH);
    }

    /** What is wrong with the tokenizer settings together, one line each naming its flag. */
    static List<String> problems(Config config) {
        List<String> problems = new ArrayList<>();
        String template = config.get(Settings.CHAT_TEMPLATE);
        if (template != null && path(config) == null) {
            problems.add(Settings.CHAT_TEMPLATE.flag() + " needs " + Settings.TOKENIZER_PATH.flag() + " or "
                    + Settings.MODEL_PATH.flag() + ": without a tokenizer of its own, prompts are tokenized by "
                    + (config.scope() == Scope.GATEWAY ? "the engines, with their templates" : "characters"));
        }
        if (template != null && template.endsWith(".json")) {
            problems.add(Settings.CHAT_TEMPLATE.flag() + " takes a Jinja template file; '" + template + "' looks like "
                    + "a JSON conversation template, which is not read");
        }
        String model = config.get(Settings.MODEL_PATH);
        if (model != null && config.get(Settings.TOKENIZER_PATH) == null && !Files.exists(Path.of(model))) {
            problems.add(Settings.MODEL_PATH.flag() + " '" + model + "' is not here: the tokenizer is read from a "
                    + "local model directory, nothing is downloaded; give the directory, or "
                    + Settings.TOKENIZER_PATH.flag());
        }
        return problems;
    }
}
