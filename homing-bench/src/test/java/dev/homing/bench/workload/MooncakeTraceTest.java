package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MooncakeTraceTest {

    private static final Path SAMPLE = TestFiles.resource("mooncake-sample.jsonl");

    private static List<MooncakeTrace.Row> rows(MooncakeTrace.Options options) {
        try (Stream<MooncakeTrace.Row> rows = new MooncakeTrace(SAMPLE, options).rows()) {
            return rows.toList();
        }
    }

    @Test
    void rowsKeepTheTraceOrderLengthsAndBlockIds() {
        List<MooncakeTrace.Row> rows = rows(MooncakeTrace.Options.AS_RECORDED);

        assertThat(rows).hasSize(6);
        assertThat(rows.get(3).blockIds()).containsExactly(0L, 1L, 2L, 5L);
        assertThat(rows.get(3).inputTokens()).isEqualTo(1800);
        assertThat(rows.get(3).outputTokens()).isEqualTo(90);
        assertThat(rows).extracting(MooncakeTrace.Row::index).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void arrivalsAreTimestampsDividedByTheRateScale() {
        List<MooncakeTrace.Row> rows = rows(new MooncakeTrace.Options(2.0, false, 0, Limits.NONE));

        assertThat(rows).extracting(MooncakeTrace.Row::arrivalMicros)
                .containsExactly(0L, 0L, 0L, 1_500_000L, 1_500_000L, 3_000_000L);
    }

    @Test
    void spreadingPutsEachBucketUniformlyBeforeTheNextTimestampInOrder() {
        List<MooncakeTrace.Row> rows = rows(new MooncakeTrace.Options(1.0, true, 11, Limits.NONE));

        List<Long> arrivals = rows.stream().map(MooncakeTrace.Row::arrivalMicros).toList();
        assertThat(arrivals).isSorted();
        assertThat(arrivals.subList(0, 3)).allSatisfy(t -> assertThat(t).isBetween(0L, 2_999_999L));
        assertThat(arrivals.subList(3, 5)).allSatisfy(t -> assertThat(t).isBetween(3_000_000L, 5_999_999L));
        assertThat(arrivals.get(5)).isBetween(6_000_000L, 8_999_999L);
        assertThat(rows).extracting(MooncakeTrace.Row::index).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void spreadingIsTheSameForASeedAndDiffersAcrossSeeds() {
        List<MooncakeTrace.Row> a = rows(new MooncakeTrace.Options(1.0, true, 11, Limits.NONE));
        List<MooncakeTrace.Row> b = rows(new MooncakeTrace.Options(1.0, true, 11, Limits.NONE));
        List<MooncakeTrace.Row> c = rows(new MooncakeTrace.Options(1.0, true, 12, Limits.NONE));

        assertThat(a).isEqualTo(b);
        assertThat(a).isNotEqualTo(c);
    }

    @Test
    void limitsStopTheTraceByCountAndByTime() {
        assertThat(rows(new MooncakeTrace.Options(1.0, false, 0, Limits.conversations(4)))).hasSize(4);
        assertThat(rows(new MooncakeTrace.Options(1.0, false, 0, new Limits(100, 3_000_000)))).hasSize(5);
    }

    @Test
    void conversationsAreOneTurnWithTheBlockTextAndIds() {
        List<Conversation> conversations;
        try (Stream<Conversation> stream = new MooncakeTrace(SAMPLE, MooncakeTrace.Options.AS_RECORDED).conversations()) {
            conversations = stream.toList();
        }

        Conversation first = conversations.getFirst();
        assertThat(first.id()).isEqualTo("mooncake-0");
        assertThat(first.systemPrompt()).isEmpty();
        assertThat(first.turns()).singleElement().satisfies(turn -> {
            assertThat(turn.userText()).hasSize(1200 * 4).isEqualTo(BlockText.of(List.of(0L, 1L, 2L), 1200));
            assertThat(turn.maxOutputTokens()).isEqualTo(40);
            assertThat(turn.blockIds()).containsExactly(0L, 1L, 2L);
        });
        int common = BlockTextTest.commonPrefix(first.turns().getFirst().userText(),
                conversations.get(2).turns().getFirst().userText());
        assertThat(common).isBetween(2 * BlockText.BLOCK_CHARS, 2 * BlockText.BLOCK_CHARS + 3);
    }

    @Test
    void theTraceIsReadOnlyAsFarAsItIsConsumed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("trace.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(SAMPLE));
        lines.add("this line is not JSON");
        Files.write(file, lines);

        try (Stream<Conversation> stream = new MooncakeTrace(file, MooncakeTrace.Options.AS_RECORDED).conversations()) {
            assertThat(stream.limit(3).toList()).hasSize(3);
        }
        try (Stream<Conversation> stream = new MooncakeTrace(file, MooncakeTrace.Options.AS_RECORDED).conversations()) {
            assertThatThrownBy(stream::toList).isInstanceOf(RuntimeException.class);
        }
    }

    @Test
    void aFileThatIsNotJsonLinesIsRefusedNamingItsLineAndTheAzureWorkload(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("azure.csv");
        Files.write(file, List.of("TIMESTAMP,ContextTokens,GeneratedTokens", "2023-11-16 18:15:46.6805900,374,44"));

        MooncakeTrace trace = new MooncakeTrace(file, MooncakeTrace.Options.AS_RECORDED);

        assertThatThrownBy(() -> trace.conversations().toList()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 1: not a Mooncake trace row").hasMessageContaining("--workload azure");
    }

    @Test
    void theNameComesFromTheFile() {
        assertThat(new MooncakeTrace(SAMPLE, MooncakeTrace.Options.AS_RECORDED).name())
                .isEqualTo("mooncake-mooncake-sample");
    }
}
