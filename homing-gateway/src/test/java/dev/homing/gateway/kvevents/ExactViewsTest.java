package dev.homing.gateway.kvevents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.Medium;
import dev.homing.core.kv.TokenBlocks;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** A long prompt looked up as it is encoded: the tokenizer stops just past the last block any engine holds. */
class ExactViewsTest {
    private static final int BLOCK = 16;

    @Test
    void aLongPromptIsEncodedOnlyAsFarAsTheEnginesHoldItAndMatchesAsTheWholeWould() {
        String prompt = words(new SplittableRandom(2), 6_000);
        try (HuggingFaceTokenizer demo = Tokenizers.demo()) {
            int[] whole = demo.encodeText(prompt);
            ExactViews views = new ExactViews(new TokenBlocks(BLOCK), 100_000);
            store(views, "a", Arrays.copyOf(whole, 40 * BLOCK));
            store(views, "b", Arrays.copyOf(whole, 10 * BLOCK));

            ExactViews.PromptWalk walk = views.walk(KvNamespace.DEFAULT);
            double share = demo.encodeTextInRuns(prompt, walk);
            ExactOverlay lazy = walk.overlay((int) Math.ceil(walk.tokens() / share));
            ExactOverlay full = views.lookup(whole, KvNamespace.DEFAULT);

            assertThat(full.cachedTokensByExactWorker()).containsEntry("a", 40 * BLOCK)
                .containsEntry("b", 10 * BLOCK);
            assertThat(lazy.cachedTokensByExactWorker()).isEqualTo(full.cachedTokensByExactWorker());
            assertThat(walk.tokens()).as("tokens encoded").isGreaterThan(40 * BLOCK).isLessThan(whole.length / 4);
            assertThat(lazy.promptTokens()).as("the prompt's length, estimated")
                .isBetween((int) (whole.length * 0.8), (int) (whole.length * 1.25));
        }
    }

    @Test
    void aPromptNoEngineHoldsStopsAfterItsFirstChunk() {
        String prompt = words(new SplittableRandom(3), 6_000);
        ExactViews views = new ExactViews(new TokenBlocks(BLOCK), 100_000);
        try (HuggingFaceTokenizer demo = Tokenizers.demo()) {
            store(views, "a", demo.encodeText(words(new SplittableRandom(4), 200)));

            ExactViews.PromptWalk walk = views.walk(KvNamespace.DEFAULT);
            double share = demo.encodeTextInRuns(prompt, walk);

            assertThat(share).isLessThan(0.1);
            assertThat(walk.overlay(1_000).cachedTokensByExactWorker()).containsEntry("a", 0);
        }
    }

    @Test
    void theBlockToCheckInTheEventsIsOneNoEngineHeldAndClearOfThePromptsLastPage() {
        ExactViews views = new ExactViews(new TokenBlocks(BLOCK), 100_000);
        int[] prompt = new SplittableRandom(5).ints(20 * BLOCK + 5, 0, 5_000).toArray();
        store(views, "a", Arrays.copyOf(prompt, 10 * BLOCK));
        long[] own = new TokenBlocks(BLOCK).hashes(prompt, KvNamespace.DEFAULT);

        ExactViews.PromptWalk walk = views.walk(KvNamespace.DEFAULT);
        walk.accept(prompt);

        assertThat(walk.unheldBlock(prompt.length, 128)).as("the deepest whole block ending 128 tokens before the end")
            .hasValue(own[(prompt.length - 128) / BLOCK - 1]);
        assertThat(walk.unheldBlock(prompt.length, 9 * BLOCK + 5)).as("the first block no engine held")
            .hasValue(own[10]);
        assertThat(walk.unheldBlock(prompt.length, 10 * BLOCK + 5)).as("only blocks an engine held are far enough")
            .isEmpty();

        ExactViews.PromptWalk held = views.walk(KvNamespace.DEFAULT);
        held.accept(Arrays.copyOf(prompt, 10 * BLOCK + 3));
        assertThat(held.unheldBlock(10 * BLOCK + 3, 0)).as("every block held: nothing to check").isEmpty();
    }

    private static void store(ExactViews views, String worker, int[] tokens) {
        long[] hashes = LongStream.range(1, tokens.length / BLOCK + 1).toArray();
        views.apply(worker, new KvEventBatch(0, List.of(new KvEvent.BlockStored(hashes, null,
            Arrays.copyOf(tokens, hashes.length * BLOCK), BLOCK, null, null, Medium.GPU, null, 0)),
            OptionalInt.empty(), 0));
        views.exact(worker, true);
    }

    private static String words(SplittableRandom random, int count) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < count; i++) {
            text.append(i == 0 ? "" : " ").append((char) ('a' + random.nextInt(26)))
                .append((char) ('a' + random.nextInt(26))).append(random.nextInt(5) == 0 ? "," : "");
        }
        return text.toString();
    }
}
