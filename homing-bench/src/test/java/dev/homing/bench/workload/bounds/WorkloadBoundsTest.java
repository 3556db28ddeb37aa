package dev.homing.bench.workload.bounds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.homing.bench.workload.GeneratedSharedPrefix;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.ScheduledRequests;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WorkloadBoundsTest {

    /** The public Mooncake conversation trace, given with {@code -Dhoming.mooncake.trace=FILE}; skipped without. */
    private static final String MOONCAKE = System.getProperty("homing.mooncake.trace", "");

    @Test
    void theOracleOfTheSharedPrefixBenchmarkReusesFifteenOfSixteenSystemPrompts() {
        GeneratedSharedPrefix workload = new GeneratedSharedPrefix(GeneratedSharedPrefix.Shape.DEFAULT);

        CacheBounds bounds = CacheBounds.of(
                ScheduledRequests.of(workload).map(r -> PromptBlocks.of(r, 16)), 1L << 40);

        // 15 of 16 requests per group hit the 2,048-token system prompt (128 whole blocks of 16 tokens). A prompt
        // renders to 8,726 characters (system prompt, question, role tags), 2,182 tokens: 88.0%, against 88.2%
        // without the tags.
        assertThat(bounds.oracle()).isEqualTo(new HitRate(64 * 15 * 2048, 1024 * 2182, 64 * 15 * 128, 1024 * 137, 1024));
        assertThat(bounds.oracle().tokenRate()).isCloseTo(15.0 / 16 * 2048 / 2176, within(0.003));
        assertThat(bounds.pooled()).isEqualTo(bounds.oracle());
    }

    @Test
    void theMooncakeConversationTraceReusesAboutAThirdOfItsTokens() {
        assumeTrue(!MOONCAKE.isEmpty() && Files.isRegularFile(Path.of(MOONCAKE)), "no Mooncake trace given");
        MooncakeTrace trace = new MooncakeTrace(Path.of(MOONCAKE), MooncakeTrace.Options.AS_RECORDED);

        CacheBounds bounds = CacheBounds.of(trace.rows().map(PromptBlocks::of), 8L * 4_000_000);

        assertThat(bounds.oracle().requests()).isEqualTo(12_031);
        assertThat(bounds.oracle().tokenRate()).isCloseTo(0.374, within(0.001));
        assertThat(bounds.oracle().blockRate()).isCloseTo(0.366, within(0.001));
    }
}
