package dev.homing.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TokenizerFilesTest {

    private static final List<ChatTurn> CHAT = List.of(new ChatTurn("user", "abc"));
    private static final String PLAIN = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}";

    @Test
    void aModelDirectoryIsTheTokenizerWhereNoTokenizerPathIsGivenAndItsChatTemplateFileIsRead(@TempDir Path model)
            throws IOException {
        copyDemoTokenizer(model);
        Files.writeString(model.resolve("chat_template.jinja"), PLAIN);
        for (Scope scope : List.of(Scope.GATEWAY, Scope.SIM_ENGINE)) {
            Config config = Config.defaults(scope).with(Settings.MODEL_PATH, model.toString());

            assertThat(config.problems()).isEmpty();
            try (HuggingFaceTokenizer tokenizer = TokenizerFiles.open(config)) {
                assertThat(tokenizer.renderChat(CHAT)).isEqualTo("user: abc\n");
            }
        }
    }

    @Test
    void aTokenizerPathWinsOverTheModelDirectoryAndAChatTemplateOverBoth(@TempDir Path model) throws IOException {
        copyDemoTokenizer(model);
        Files.writeString(model.resolve("chat_template.jinja"), PLAIN);
        Path template = Files.writeString(model.resolve("operator.jinja"), "{{ messages[0]['content'] }}!");
        Config demo = Config.defaults(Scope.GATEWAY).with(Settings.MODEL_PATH, model.toString())
                .with(Settings.TOKENIZER_PATH, "demo");

        try (HuggingFaceTokenizer tokenizer = TokenizerFiles.open(demo)) {
            assertThat(tokenizer.renderChat(CHAT))
                    .isEqualTo("<|im_start|>user\nabc<|im_end|>\n<|im_start|>assistant\n");
        }
        try (HuggingFaceTokenizer tokenizer = TokenizerFiles.open(demo.with(Settings.CHAT_TEMPLATE,
                template.toString()))) {
            assertThat(tokenizer.renderChat(CHAT)).isEqualTo("abc!");
        }
    }

    @Test
    void noSettingNamesATokenizerByDefault() {
        assertThat(TokenizerFiles.open(Config.defaults(Scope.GATEWAY))).isNull();
    }

    @Test
    void aChatTemplateWithoutATokenizerOrInJsonAndAModelPathThatIsNotHereAreRefusedByTheirFlags(@TempDir Path dir) {
        Config gateway = Config.defaults(Scope.GATEWAY).with(Settings.CHAT_TEMPLATE, "template.jinja");
        Config engine = Config.defaults(Scope.SIM_ENGINE).with(Settings.CHAT_TEMPLATE, "template.jinja");
        String absent = dir.resolve("Qwen").resolve("Qwen3-8B").toString();

        assertThat(gateway.problems()).containsExactly("--chat-template needs --tokenizer-path or --model-path: "
                + "without a tokenizer of its own, prompts are tokenized by the engines, with their templates");
        assertThat(engine.problems()).singleElement().asString().startsWith("--chat-template needs --tokenizer-path");
        assertThat(gateway.with(Settings.TOKENIZER_PATH, "demo").with(Settings.CHAT_TEMPLATE, "conv.json").problems())
                .containsExactly("--chat-template takes a Jinja template file; 'conv.json' looks like a JSON "
                        + "conversation template, which is not read");
        assertThat(Config.defaults(Scope.GATEWAY).with(Settings.MODEL_PATH, absent).problems()).singleElement()
                .asString().startsWith("--model-path '" + absent + "' is not here").contains("nothing is downloaded");
        assertThat(Config.defaults(Scope.GATEWAY).with(Settings.MODEL_PATH, absent)
                .with(Settings.TOKENIZER_PATH, "demo").problems()).as("the model path unread").isEmpty();
    }

    private static void copyDemoTokenizer(Path dir) throws IOException {
        try (InputStream in = HuggingFaceTokenizer.class.getResourceAsStream("demo/tokenizer.json")) {
            Files.copy(in, dir.resolve("tokenizer.json"));
        }
    }
}
