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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** A chat encoded piece by piece between added tokens, through the piece cache, gets the ids of its text encoded whole. */
class PieceWiseEncodingTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** Text a chat may hold: words, spaces and newlines, other scripts, and added tokens whole and in part. */
    private static final List<String> FRAGMENTS = List.of("abc", "def", " ", "  ", "\n", "\n\n", "\t", "ghi jkl",
        "Grüße", "東京", "🚀", "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_", "|>", "<", "im_end",
        "<|im_start|>assistant\n", "user", "system", "'s", "123", "!?", ".");
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
    void aConversationGrowingTurnByTurnGetsTheIdsOfItsWholeTextAtEachTurn() {
        SplittableRandom random = new SplittableRandom(11);
        List<ChatTurn> chat = new ArrayList<>(List.of(new ChatTurn("system", text(random, 40))));
        for (int turn = 0; turn < 30; turn++) {
            chat.add(new ChatTurn(turn % 2 == 0 ? "user" : "assistant", text(random, 20)));
            assertThat(demo.encodeChat(chat)).as("turn %d", turn)
                .isEqualTo(demo.encodeText(demo.renderChat(chat), false));
        }
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

    @Test
    void aMetaspaceThatMarksOnlyTheFirstPieceTurnsThePieceWisePathOff(@TempDir Path dir) throws IOException {
        ObjectNode tokenizer = demoJson();
        tokenizer.putObject("pre_tokenizer").put("type", "Metaspace").put("replacement", "▁")
            .put("prepend_scheme", "first").put("split", true);
        try (HuggingFaceTokenizer metaspace = load(dir, tokenizer)) {
            assertThat(metaspace.encodesByPieces()).isFalse();
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

    private static String text(SplittableRandom random, int fragments) {
        StringBuilder text = new StringBuilder();
        for (int f = 0; f < fragments; f++) {
            text.append(FRAGMENTS.get(random.nextInt(FRAGMENTS.size())));
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
