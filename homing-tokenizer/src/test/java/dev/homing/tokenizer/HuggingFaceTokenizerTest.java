package dev.homing.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

class HuggingFaceTokenizerTest {
    static final int END_OF_TEXT = 3256;
    static final int IM_START = 3257;
    static final int IM_END = 3258;
    static final int NEWLINE = 10;

    private static HuggingFaceTokenizer demo;

    @BeforeAll
    static void openDemo() {
        demo = Tokenizers.open("demo");
    }

    @AfterAll
    static void closeDemo() {
        demo.close();
    }

    @Test
    void theDemoTokenizerGivesTheIdsItsMergeListMakes() {
        // Worked out from the merge list: single bytes keep their byte value ('a' 97, '\n' 10); the lowest-ranked
        // merge applies first, "Ġw" (260) before "rl" (356) in " world".
        assertThat(demo.encodeText("a")).containsExactly(97);
        assertThat(demo.encodeText("hello world")).containsExactly(104, 596, 108, 111, 260, 111, 356, 100);
        assertThat(demo.encodeText("abc def ghi")).containsExactly(97, 620, 277, 665, 259, 907);
        assertThat(demo.encodeText("<|im_start|>user\n")).containsExactly(IM_START, 117, 626, 114, NEWLINE);
        assertThat(demo.encodeText("<|endoftext|><|im_end|>")).containsExactly(END_OF_TEXT, IM_END);
    }

    @Test
    void aChatAskedAgainGetsTheSameIdsAsItsTextEncodedWhole() {
        List<ChatTurn> chat = List.of(new ChatTurn("system", "be brief"), new ChatTurn("user", "abc def"));
        int[] first = demo.encodeChat(chat);
        first[0] = -1;

        int[] again = demo.encodeChat(List.of(new ChatTurn("system", "be brief"), new ChatTurn("user", "abc def")));

        assertThat(again).isEqualTo(demo.encodeText(demo.renderChat(chat), false));
        assertThat(demo.encodeChat(chat, false)).isEqualTo(demo.encodeText(
            demo.renderChat(chat).substring(0, demo.renderChat(chat).lastIndexOf("<|im_start|>")), false));
    }

    @Test
    void chatsWhoseTurnsJoinToTheSameTextAreKeptApart() {
        List<ChatTurn> one = List.of(new ChatTurn("user", "ab"), new ChatTurn("user", "c"));
        List<ChatTurn> other = List.of(new ChatTurn("user", "a"), new ChatTurn("user", "bc"));

        assertThat(demo.encodeChat(one)).isEqualTo(demo.encodeText(demo.renderChat(one), false));
        assertThat(demo.encodeChat(other)).isEqualTo(demo.encodeText(demo.renderChat(other), false));
    }

    @Test
    void aChatsTokensAreItsTemplateTextEncodedWithoutAddingSpecialTokensAgain() {
        List<ChatTurn> chat = List.of(new ChatTurn("system", "You are terse."), new ChatTurn("user", "abc def"));

        String text = demo.renderChat(chat);
        int[] tokens = demo.encodeChat(chat);

        assertThat(text).isEqualTo("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nabc def"
            + "<|im_end|>\n<|im_start|>assistant\n");
        assertThat(tokens).isEqualTo(demo.encodeText(text, false));
        assertThat(tokens[0]).isEqualTo(IM_START);
        assertThat(demo.decode(tokens)).isEqualTo(text);
    }

    @Test
    void theIdsAreThoseDjlsFullEncodingGives(@TempDir Path dir) throws IOException {
        writeLlama3StyleTokenizer(dir);
        List<String> texts = List.of("", "a", "hello world", "<|im_start|>user\nabc<|im_end|>\n",
            "  leading and trailing  ", "Grüße, naïve café — 東京 🚀", "abc def ghi ".repeat(500));
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir);
             InputStream in = Files.newInputStream(dir.resolve("tokenizer.json"));
             var djl = ai.djl.huggingface.tokenizers.HuggingFaceTokenizer.newInstance(in,
                 HuggingFaceTokenizer.OPTIONS)) {
            for (String text : texts) {
                for (boolean special : List.of(true, false)) {
                    assertThat(llama.encodeText(text, special)).as("%s, special tokens %s", text, special)
                        .isEqualTo(ints(djl.encode(text, special, false).getIds()));
                }
            }
        }
    }

    private static int[] ints(long[] ids) {
        return java.util.Arrays.stream(ids).mapToInt(Math::toIntExact).toArray();
    }

    @Test
    void aLongPromptIsCountedWholeNeverTruncated() {
        String prompt = "abc def ghi ".repeat(2_000);

        int[] tokens = demo.encodeText(prompt);
        assertThat(tokens).hasSizeGreaterThan(10_000);
        assertThat(demo.decode(tokens)).isEqualTo(prompt);
    }

    @Test
    void aTokenizerThatAddsABosTokenAddsItToARawPromptButNotToAChatWhoseTemplateWritesIt(@TempDir Path dir)
        throws IOException {
        writeLlama3StyleTokenizer(dir);
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir)) {
            int bos = llama.encodeText("<|begin_of_text|>", false)[0];
            List<ChatTurn> chat = List.of(new ChatTurn("user", " abc "));

            assertThat(llama.encodeText("abc")).containsExactly(bos, 97, 620);
            assertThat(llama.renderChat(chat)).isEqualTo("<|begin_of_text|><|start_header_id|>user<|end_header_id|>"
                + "\n\nabc<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n");
            int[] tokens = llama.encodeChat(chat);
            assertThat(tokens[0]).isEqualTo(bos);
            assertThat(tokens[1]).isNotEqualTo(bos);
            assertThat(tokens).isEqualTo(llama.encodeText(llama.renderChat(chat), false));
        }
    }

    @Test
    void aTokenizerJsonFileLoadsWithItsConfigBesideIt(@TempDir Path dir) throws IOException {
        writeLlama3StyleTokenizer(dir);
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir.resolve("tokenizer.json"))) {
            assertThat(llama.renderChat(List.of(new ChatTurn("user", "x")))).startsWith("<|begin_of_text|>");
            assertThat(llama.name()).endsWith("tokenizer.json");
        }
    }

    @Test
    void aTokenizerWithoutAConfigGetsTheChatMlTemplate(@TempDir Path dir) throws IOException {
        copyDemo(dir.resolve("tokenizer.json"));
        try (HuggingFaceTokenizer bare = HuggingFaceTokenizer.load(dir)) {
            assertThat(bare.encodeChat(List.of(new ChatTurn("user", "abc"))))
                .isEqualTo(demo.encodeChat(List.of(new ChatTurn("user", "abc"))));
        }
    }

    /** A template of its own: the BOS token, then each turn as "[role] content", one a line. */
    private static final String BRACKETS = "{{ bos_token }}{% for m in messages %}"
        + "[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}{% if add_generation_prompt %}[assistant] {% endif %}";

    @Test
    void aChatTemplateJinjaBesideTheTokenizerReplacesTheConfigurationsTemplate(@TempDir Path dir) throws IOException {
        writeLlama3StyleTokenizer(dir);
        Files.writeString(dir.resolve("chat_template.jinja"), BRACKETS);
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir)) {
            List<ChatTurn> chat = List.of(new ChatTurn("system", "be brief"), new ChatTurn("user", "abc"));

            // The configuration's BOS token stays: only the template is replaced, as transformers does.
            assertThat(llama.renderChat(chat))
                .isEqualTo("<|begin_of_text|>[system] be brief\n[user] abc\n[assistant] ");
            assertThat(llama.encodeChat(chat)).isEqualTo(llama.encodeText(llama.renderChat(chat), false));
        }
    }

    @Test
    void aChatTemplateFileNamedReplacesTheTokenizersOwnWhereverItComesFrom(@TempDir Path dir) throws IOException {
        writeLlama3StyleTokenizer(dir);
        Files.writeString(dir.resolve("chat_template.jinja"), "{% for m in messages %}{{ m['content'] }}{% endfor %}");
        Path named = Files.writeString(dir.resolve("operator.jinja"), BRACKETS);
        List<ChatTurn> chat = List.of(new ChatTurn("user", "abc"));
        try (HuggingFaceTokenizer llama = Tokenizers.open(dir.toString(), named);
             HuggingFaceTokenizer demoWithIt = Tokenizers.open(Tokenizers.DEMO, named)) {
            assertThat(llama.renderChat(chat)).isEqualTo("<|begin_of_text|>[user] abc\n[assistant] ");
            assertThat(demoWithIt.renderChat(chat)).isEqualTo("[user] abc\n[assistant] ");
        }
    }

    @Test
    void aChatTemplateFileThatIsMissingEmptyOrDoesNotParseIsRefusedSayingWhich(@TempDir Path dir) throws IOException {
        writeLlama3StyleTokenizer(dir);
        Path missing = dir.resolve("missing.jinja");
        Path empty = Files.writeString(dir.resolve("empty.jinja"), " \n");
        Path broken = Files.writeString(dir.resolve("broken.jinja"), "{% for m in messages %}{{ m['content'] }}");

        assertThatThrownBy(() -> Tokenizers.open(dir.toString(), missing)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("cannot read the chat template " + missing);
        assertThatThrownBy(() -> Tokenizers.open(dir.toString(), empty)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("the chat template " + empty + " is empty");
        assertThatThrownBy(() -> Tokenizers.open(Tokenizers.DEMO, broken)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("the chat template " + broken + " does not parse");
    }

    @Test
    void aPathWithoutATokenizerIsRefusedSayingWhere(@TempDir Path dir) throws IOException {
        assertThatThrownBy(() -> Tokenizers.open(dir.toString())).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("no tokenizer.json at " + dir);
        Files.writeString(dir.resolve("tokenizer.json"), "{\"model\": 42}");
        assertThatThrownBy(() -> Tokenizers.open(dir.toString())).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("is not a tokenizer");
    }

    @Test
    void chatsEncodedOnSeveralThreadsAtOnceGetTheTokensEachGetsAlone() throws Exception {
        int threads = 4;
        List<List<ChatTurn>> chats = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            chats.add(List.of(new ChatTurn("system", "You are assistant " + i + "."),
                new ChatTurn("user", ("abc def ghi " + i + " ").repeat(10 + 30 * i)),
                new ChatTurn("assistant", "jkl " + i), new ChatTurn("user", "mno pqr " + i)));
        }
        List<int[]> alone = chats.stream().map(demo::encodeChat).toList();

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<int[]>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<ChatTurn> chat = chats.get(t);
                results.add(pool.submit(() -> {
                    start.await();
                    List<int[]> tokens = new ArrayList<>();
                    for (int round = 0; round < 200; round++) {
                        tokens.add(demo.encodeChat(chat));
                    }
                    return tokens;
                }));
            }
            start.countDown();
            for (int t = 0; t < threads; t++) {
                int[] expected = alone.get(t);
                assertThat(results.get(t).get(2, TimeUnit.MINUTES))
                    .allSatisfy(tokens -> assertThat(tokens).isEqualTo(expected));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void djlIsToldNotToReportUsage() {
        assertThat(System.getProperty("OPT_OUT_TRACKING")).isEqualTo("true");
    }

    /** The demo BPE with Llama 3's special tokens, its BOS post-processor and its chat template. */
    static void writeLlama3StyleTokenizer(Path dir) throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        ObjectNode tokenizer;
        try (InputStream in = Tokenizers.class.getResourceAsStream("demo/tokenizer.json")) {
            tokenizer = (ObjectNode) json.readTree(in);
        }
        ArrayNode added = tokenizer.withArray("added_tokens");
        int bos = 3259;
        List<String> specials = List.of("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>");
        for (int i = 0; i < specials.size(); i++) {
            added.addObject().put("id", bos + i).put("content", specials.get(i)).put("single_word", false)
                .put("lstrip", false).put("rstrip", false).put("normalized", false).put("special", true);
        }
        ObjectNode post = tokenizer.putObject("post_processor");
        post.put("type", "TemplateProcessing");
        ArrayNode single = post.putArray("single");
        single.addObject().putObject("SpecialToken").put("id", "<|begin_of_text|>").put("type_id", 0);
        single.addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        ArrayNode pair = post.putArray("pair");
        pair.addAll(single.deepCopy());
        pair.addObject().putObject("Sequence").put("id", "B").put("type_id", 1);
        ObjectNode bosEntry = post.putObject("special_tokens").putObject("<|begin_of_text|>");
        bosEntry.put("id", "<|begin_of_text|>");
        bosEntry.putArray("ids").add(bos);
        bosEntry.putArray("tokens").add("<|begin_of_text|>");
        Files.writeString(dir.resolve("tokenizer.json"), json.writeValueAsString(tokenizer));

        ObjectNode config = json.createObjectNode();
        config.put("bos_token", "<|begin_of_text|>");
        config.putObject("eos_token").put("content", "<|eot_id|>").put("special", true);
        config.put("chat_template", JinjaChatTemplateTest.LLAMA_3);
        Files.writeString(dir.resolve("tokenizer_config.json"), json.writeValueAsString(config));
    }

    private static void copyDemo(Path to) throws IOException {
        try (InputStream in = Tokenizers.class.getResourceAsStream("demo/tokenizer.json")) {
            Files.copy(in, to);
        }
    }
}
