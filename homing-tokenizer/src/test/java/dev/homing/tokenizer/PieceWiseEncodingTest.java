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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A chat encoded piece by piece between added tokens, and a long text chunk by chunk between words, through the piece
 * cache and in runs a caller may stop, gets the ids of its text encoded whole.
 */
class PieceWiseEncodingTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Text a chat may hold: words, spaces and newlines, other scripts, and added tokens whole and in part. */
    private static final List<String> FRAGMENTS = List.of("abc", "def", " ", "  ", "\n", "\n\n", "\t", "ghi jkl",
        "Grüße", "東京", "🚀", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_", "|>", "<", "im_end",
        "<|im_start|>assistant\n", "user", "system", "'s", "123", "!?", ".");
    private static final List<String> WORDS = List.of("abc", " def", " ghi", " Jkl", " mno's", " 123", "4567", ", ",
        ". ", "!? ", " ", "  ", "\n", "\n\n", "\t", " naïve", " café", " 東京", " 🚀", " x", " y", "'ll", " A",
        "<|im_start|>", "<|im_end|>", " it's", "-", "--", " (", ")");
    private static final List<String> ROLES = List.of("system", "user", "assistant", "tool");

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
    void theDemoTokenizerEncodesChatsPieceByPiece() {
        assertThat(demo.encodesByPieces()).isTrue();
    }

    @Test
    void randomChatsGetTheIdsOfTheirRenderedTextEncodedWhole() {
        assertSameIdsAsWhole(demo, 400);
    }

    @Test
    void aTokenizerWithSeveralAddedTokensAndABosEncodesPieceByPieceExactly(@TempDir Path dir) throws IOException {
        HuggingFaceTokenizerTest.writeLlama3StyleTokenizer(dir);
        try (HuggingFaceTokenizer llama = HuggingFaceTokenizer.load(dir)) {
            assertThat(llama.encodesByPieces()).isTrue();
            assertSameIdsAsWhole(llama, 200);
        }
    }

    @Test
    void anAddedTokenThatStripsTheSpacesBesideItTurnsThePieceWisePathOff(@TempDir Path dir) throws IOException {
        ObjectNode tokenizer = demoJson();
        ((ObjectNode) tokenizer.withArray("added_tokens").get(2)).put("lstrip", true);
        try (HuggingFaceTokenizer stripping = load(dir, tokenizer)) {
            assertThat(stripping.encodesByPieces()).isFalse();
            assertSameIdsAsWhole(stripping, 50);
        }
    }

    /** "first" marks a text's first piece alone, so pieces differ; "always" marks every word, but not between words. */
    @ParameterizedTest
    @ValueSource(strings = {"first", "always"})
    void aMetaspaceTokenizerIsNeitherCutBetweenWordsNorSplitIfItMarksOnlyTheFirstPiece(String prependScheme,
                                                                                         @TempDir Path dir)
        throws IOException {
        ObjectNode tokenizer = demoJson();
        tokenizer.putObject("pre_tokenizer").put("type", "Metaspace").put("replacement", "▁")
            .put("prepend_scheme", prependScheme).put("split", true);
        try (HuggingFaceTokenizer metaspace = load(dir, tokenizer)) {
            assertThat(metaspace.encodesByPieces()).isEqualTo(prependScheme.equals("always"));
            assertThat(metaspace.cutsWords()).isFalse();
            String text = words(new SplittableRandom(19), 1_000);
            assertThat(metaspace.encodeText(text)).isEqualTo(metaspace.encodeWhole(text, true));
        }
    }

    @Test
    void thePieceCacheStaysWithinItsBoundEvictingTheLeastRecentlyUsed() {
        SegmentCache cache = new SegmentCache(80);
        for (int i = 0; i < 100; i++) {
            int n = i;
            cache.ids("piece " + i, p -> new int[] {n, n, n});
            assertThat(cache.tokens()).isLessThanOrEqualTo(80);
        }
        int[] calls = {0};
        cache.ids("piece 99", p -> new int[] {calls[0]++});
        cache.ids("piece 0", p -> new int[] {calls[0]++});
        assertThat(calls[0]).as("piece 99 kept, piece 0 evicted").isEqualTo(1);
    }

    private static void assertSameIdsAsWhole(HuggingFaceTokenizer tokenizer, int chats) {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < chats; i++) {
            List<ChatTurn> chat = new ArrayList<>();
            int turns = 1 + random.nextInt(6);
            for (int t = 0; t < turns; t++) {
                chat.add(new ChatTurn(ROLES.get(random.nextInt(ROLES.size())), text(random, random.nextInt(30))));
            }
            assertThat(tokenizer.encodeChat(chat)).as("chat %d: %s", i, chat)
                .isEqualTo(tokenizer.encodeText(tokenizer.renderChat(chat), false));
        }
    }

    @Test
    void theDemoTokenizerCutsLongPiecesBetweenWords() {
        assertThat(demo.cutsWords()).isTrue();
    }

    @Test
    void longRandomTextsGetTheIdsOfTheTextEncodedWholeWithAndWithoutSpecialTokens() {
        SplittableRandom random = new SplittableRandom(3);
        for (int i = 0; i < 40; i++) {
            String text = words(random, 200 + random.nextInt(3_000));
            for (boolean special : List.of(true, false)) {
                assertThat(demo.encodeText(text, special)).as("text %d, special %s", i, special)
                    .isEqualTo(demo.encodeWhole(text, special));
            }
            assertThat(runs(demo, text, Integer.MAX_VALUE)).as("text %d in runs", i)
                .isEqualTo(demo.encodeWhole(text, true));
        }
    }

    /** Short turns (the chat cache, pieces between added tokens) and long ones (chunks between words). */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aConversationGrowingTurnByTurnGetsTheIdsOfItsWholeTextAtEachTurnWholeAndInRuns(boolean longTurns) {
        SplittableRandom random = new SplittableRandom(11);
        List<ChatTurn> chat = new ArrayList<>(List.of(new ChatTurn("system", longTurns ? words(random, 800)
            : text(random, 40))));
        for (int turn = 0; turn < (longTurns ? 8 : 30); turn++) {
            chat.add(new ChatTurn(turn % 2 == 0 ? "user" : "assistant", longTurns ? words(random, 600)
                : text(random, 20)));
            int[] whole = demo.encodeWhole(demo.renderChat(chat), false);
            TokenIdBuffer joined = new TokenIdBuffer();
            double share = demo.encodeChatInRuns(chat, run -> {
                joined.add(run);
                return true;
            });
            assertThat(demo.encodeChat(chat)).as("turn %d", turn).isEqualTo(whole);
            assertThat(joined.toArray()).as("turn %d in runs", turn).isEqualTo(whole);
            assertThat(share).isEqualTo(1);
        }
    }

    @Test
    void aCallerThatStopsAfterTheFirstRunsGetsAPrefixOfTheIdsAndTheShareOfTheTextTheyCover() {
        String text = words(new SplittableRandom(9), 6_000);
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
        String shared = words(random, 4_000);
        List<String> first = chunks(shared + words(random, 500));
        List<String> second = chunks(shared + words(random, 500));

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
            String text = words(new SplittableRandom(17), 2_000);
            assertThat(llama.encodeText(text)).isEqualTo(llama.encodeWhole(text, true));
            assertThat(runs(llama, text, Integer.MAX_VALUE)).isEqualTo(llama.encodeWhole(text, true));
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
        return join(random, fragments, FRAGMENTS);
    }

    /** Text of long prompts: mostly words, with numbers, punctuation, spacing, other scripts and added tokens. */
    private static String words(SplittableRandom random, int fragments) {
        return join(random, fragments, WORDS);
    }

    private static String join(SplittableRandom random, int fragments, List<String> from) {
        StringBuilder text = new StringBuilder();
        for (int f = 0; f < fragments; f++) {
            text.append(from.get(random.nextInt(from.size())));
        }
        return text.toString();
    }

    private static ObjectNode demoJson() throws IOException {
        try (InputStream in = Tokenizers.class.getResourceAsStream("demo/tokenizer.json")) {
            return (ObjectNode) JSON.readTree(in);
        }
    }

    private static HuggingFaceTokenizer load(Path dir, JsonNode tokenizer) throws IOException {
        Files.writeString(dir.resolve("tokenizer.json"), JSON.writeValueAsString(tokenizer));
        return HuggingFaceTokenizer.load(dir);
    }
}
