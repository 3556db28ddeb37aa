package dev.homing.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Long texts cut between words and encoded chunk by chunk, in runs a caller may stop, get the ids of the whole. */
class WordCutsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Words, numbers, punctuation, spacing, other scripts and added tokens, as long prompts hold them. */
    private static final List<String> FRAGMENTS = List.of("abc", " def", " ghi", " Jkl", " mno's", " 123", "4567",
        ", ", ". ", "!? ", " ", "  ", "\n", "\n\n", "\t", " naïve", " café", " 東京", " 🚀", " x", " y", "'ll", " A",
        "<|im_start|>", "<|im_end|>", " it's", "-", "--", " (", ")");

    private static HuggingFaceTokenizer demo;

    @BeforeAll
    static void openDemo() {
        demo = Tokenizers.demo();
    }

    @AfterAll
    static void closeDemo() {
        demo.close();
    }

    @Test
    void theDemoTokenizerCutsLongPiecesBetweenWords() {
        assertThat(demo.cutsWords()).isTrue();
    }

    @Test
    void longRandomTextsGetTheIdsOfTheTextEncodedWholeWithAndWithoutSpecialTokens() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 40; i++) {
            String text = text(random, 200 + random.nextInt(3_000));
            for (boolean special : List.of(true, false)) {
                assertThat(demo.encodeText(text, special)).as("text %d, special %s", i, special)
                    .isEqualTo(demo.encodeWhole(text, special));
            }
            assertThat(runs(demo, text, Integer.MAX_VALUE)).as("text %d in runs", i)
                .isEqualTo(demo.encodeWhole(text, true));
        }
    }

    @Test
    void longChatsInRunsGetTheIdsOfTheirRenderedTextEncodedWhole() {
        SplittableRandom random = new SplittableRandom(5);
        List<ChatTurn> chat = new ArrayList<>(List.of(new ChatTurn("system", text(random, 800))));
        for (int turn = 0; turn < 8; turn++) {
            chat.add(new ChatTurn(turn % 2 == 0 ? "user" : "assistant", text(random, 600)));
            TokenIdBuffer joined = new TokenIdBuffer();
            double share = demo.encodeChatInRuns(chat, run -> {
                joined.add(run);
                return true;
            });
            int[] whole = demo.encodeWhole(demo.renderChat(chat), false);
            assertThat(share).isEqualTo(1);
            assertThat(joined.toArray()).as("turn %d in runs", turn).isEqualTo(whole);
            assertThat(demo.encodeChat(chat)).as("turn %d", turn).isEqualTo(whole);
        }
    }

    @Test
    void aCallerThatStopsAfterTheFirstRunsGetsAPrefixOfTheIdsAndTheShareOfTheTextTheyCover() {
        String text = text(new SplittableRandom(9), 6_000);
        int[] whole = demo.encodeWhole(text, true);
        List<int[]> taken = new ArrayList<>();
        double share = demo.encodeTextInRuns(text, run -> {
            taken.add(run);
            return taken.size() < 3;
        });

        assertThat(taken).hasSize(3);
        TokenIdBuffer joined = new TokenIdBuffer();
        taken.forEach(joined::add);
        int[] prefix = joined.toArray();
        assertThat(prefix).isEqualTo(java.util.Arrays.copyOf(whole, prefix.length));
        assertThat(share).isGreaterThan(0).isLessThan(0.5);
        assertThat(prefix.length / share).as("the length estimated from the share")
            .isBetween(whole.length * 0.8, whole.length * 1.25);
    }

    @Test
    void textsSharingAPrefixAreCutAlikeUpToNearWhereTheyPart() {
        SplittableRandom random = new SplittableRandom(13);
        String shared = text(random, 4_000);
        List<String> first = chunks(shared + text(random, 500));
        List<String> second = chunks(shared + text(random, 500));

        int same = 0;
        while (same < Math.min(first.size(), second.size()) && first.get(same).equals(second.get(same))) {
            same++;
        }
        int sharedChars = first.subList(0, same).stream().mapToInt(String::length).sum();
        assertThat(sharedChars).isGreaterThan(shared.length() - WordCuts.MAX_CHARS - 100);
        assertThat(first).allSatisfy(chunk -> assertThat(chunk.length()).isLessThan(WordCuts.MAX_CHARS + 200));
        assertThat(String.join("", first)).startsWith(shared);
    }

    @Test
    void aTokenizerThatAddsABosGetsItOnceBeforeAllChunks(@TempDir Path dir) throws IOException {
        HuggingFaceTokenizerTest.writeLlama3StyleTokenizer(dir);
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir)) {
            assertThat(llama.cutsWords()).isTrue();
            String text = text(new SplittableRandom(17), 2_000);
            assertThat(llama.encodeText(text)).isEqualTo(llama.encodeWhole(text, true));
            assertThat(runs(llama, text, Integer.MAX_VALUE)).isEqualTo(llama.encodeWhole(text, true));
        }
    }

    @Test
    void aMetaspaceTokenizerIsEncodedWhole(@TempDir Path dir) throws IOException {
        ObjectNode tokenizer;
        try (InputStream in = Tokenizers.class.getResourceAsStream("demo/tokenizer.json")) {
            tokenizer = (ObjectNode) JSON.readTree(in);
        }
        tokenizer.putObject("pre_tokenizer").put("type", "Metaspace").put("replacement", "▁")
            .put("prepend_scheme", "always").put("split", true);
        Files.writeString(dir.resolve("tokenizer.json"), JSON.writeValueAsString(tokenizer));
        try (HuggingFaceTokenizer metaspace = HuggingFaceTokenizer.load(dir)) {
            assertThat(metaspace.cutsWords()).isFalse();
            String text = text(new SplittableRandom(19), 1_000);
            assertThat(metaspace.encodeText(text)).isEqualTo(metaspace.encodeWhole(text, true));
        }
    }

    private static int[] runs(HuggingFaceTokenizer tokenizer, String text, int maxRuns) {
        TokenIdBuffer joined = new TokenIdBuffer();
        int[] count = {0};
        tokenizer.encodeTextInRuns(text, run -> {
            joined.add(run);
            return ++count[0] < maxRuns;
        });
        return joined.toArray();
    }

    private static List<String> chunks(String text) {
        List<String> chunks = new ArrayList<>();
        WordCuts.CHUNKS.cut(text, chunks::add);
        return chunks;
    }

    private static String text(SplittableRandom random, int fragments) {
        StringBuilder text = new StringBuilder();
        for (int f = 0; f < fragments; f++) {
            text.append(FRAGMENTS.get(random.nextInt(FRAGMENTS.size())));
        }
        return text.toString();
    }
}
