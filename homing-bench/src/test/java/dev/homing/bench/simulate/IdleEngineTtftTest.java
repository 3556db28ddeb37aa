package dev.homing.bench.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.bounds.PooledCacheBound;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.TimingModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IdleEngineTtftTest {

    private static final EngineConfig ENGINE = EngineConfig.DEFAULTS;
    private static final TimingModel TIMING = ENGINE.timing();

    @Test
    void eachRequestPrefillsOnlyWhatNoEarlierRequestCouldHaveLeftCachedChunkByChunk(@TempDir Path dir)
            throws IOException {
        MooncakeTrace trace = fourRequests(dir);

        long[] floors = IdleEngineTtft.floors(trace, ENGINE);

        assertThat(floors).containsExactly(
                TIMING.prefillNanos(1),       // all cached but the last token, which makes the first output token
                TIMING.prefillNanos(476),     // two blocks of 512 cached by the first request
                TIMING.prefillNanos(1000),    // nothing seen before
                TIMING.prefillNanos(8192) + TIMING.prefillNanos(1808)); // two chunks
    }

    @Test
    void withAFiniteLruCacheARequestFindsOnlyWhatItStillHolds(@TempDir Path dir) throws IOException {
        MooncakeTrace trace = fourRequests(dir);

        // 1,500 tokens: the 10,000-token prompt evicts blocks 1 and 2 before the last request comes back to them.
        long[] floors = IdleEngineTtft.floors(trace, ENGINE, new PooledCacheBound(1_500)::accept);

        assertThat(floors).containsExactly(
                TIMING.prefillNanos(476),
                TIMING.prefillNanos(1000),
                TIMING.prefillNanos(1000),
                TIMING.prefillNanos(8192) + TIMING.prefillNanos(1808));
    }

    private static MooncakeTrace fourRequests(Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("trace.jsonl"), """
                {"timestamp": 0, "input_length": 1000, "output_length": 8, "hash_ids": [1, 2]}
                {"timestamp": 0, "input_length": 1500, "output_length": 8, "hash_ids": [1, 2, 3]}
                {"timestamp": 3000, "input_length": 10000, "output_length": 8, "hash_ids": [%s]}
                {"timestamp": 3000, "input_length": 1000, "output_length": 8, "hash_ids": [1, 2]}
                """.formatted(String.join(", ", java.util.stream.IntStream.rangeClosed(4, 23)
                        .mapToObj(String::valueOf).toList())));
        return new MooncakeTrace(file, new MooncakeTrace.Options(1.0, false, 0, Limits.NONE));
    }
}
