package dev.homing.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class AzureTraceTest {

    private static final Path SAMPLE = TestFiles.resource("azure-sample.csv");

    private static List<Conversation> read(AzureTrace.Options options) {
        try (Stream<Conversation> stream = new AzureTrace(SAMPLE, options).conversations()) {
            return stream.toList();
        }
    }

    @Test
    void arrivalsCountFromTheFirstRowAndLengthsAreKept() {
        List<Conversation> conversations = read(AzureTrace.Options.defaults(1));

        assertThat(conversations).extracting(Conversation::startMicros).containsExactly(0L, 500_000L, 1_750_000L);
        assertThat(conversations).extracting(c -> c.turns().getFirst().userText().length())
                .containsExactly(4000 * 4, 300 * 4, 3000 * 4);
        assertThat(conversations).extracting(c -> c.turns().getFirst().maxOutputTokens()).containsExactly(10, 20, 5);
    }

    @Test
    void aPromptStartsWithOneSharedPrefixCutToHalfItsLength() {
        AzureTrace trace = new AzureTrace(SAMPLE, AzureTrace.Options.defaults(1));
        List<String> prefixes = IntStream.range(0, 8).mapToObj(trace::sharedPrefix).toList();

        List<Conversation> conversations = read(AzureTrace.Options.defaults(1));

        String longPrompt = conversations.get(0).turns().getFirst().userText();
        String shortPrompt = conversations.get(1).turns().getFirst().userText();
        assertThat(prefixes).anySatisfy(p -> assertThat(longPrompt).startsWith(p));
        assertThat(prefixes).anySatisfy(p -> assertThat(shortPrompt).startsWith(p.substring(0, 150 * 4)));
        assertThat(prefixes).noneSatisfy(p -> assertThat(shortPrompt).startsWith(p.substring(0, 151 * 4)));
    }

    @Test
    void theRateScaleCompressesTime() {
        AzureTrace.Options fast = new AzureTrace.Options(2.0, 8, 1024, 1, Limits.NONE);

        assertThat(read(fast)).extracting(Conversation::startMicros).containsExactly(0L, 250_000L, 875_000L);
    }

    @Test
    void theSameSeedGivesTheSameTextAndAnotherSeedAnotherText() {
        assertThat(read(AzureTrace.Options.defaults(1))).isEqualTo(read(AzureTrace.Options.defaults(1)));
        assertThat(read(AzureTrace.Options.defaults(1))).isNotEqualTo(read(AzureTrace.Options.defaults(2)));
    }

    @Test
    void limitsStopTheTrace() {
        assertThat(read(new AzureTrace.Options(1.0, 8, 1024, 1, Limits.conversations(2)))).hasSize(2);
    }
}
