package dev.homing.bench.jmh;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.ExactMatch;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.Medium;
import dev.homing.core.kv.TokenBlocks;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * What the exact view adds to a routing decision: hashing a prompt's tokens into the gateway's blocks
 * ({@link TokenBlocks}, 16 tokens a block) and one {@link ExactKvIndex#match} over a fleet of 8 workers. Each worker's
 * index holds 64 prompts of the measured length stored as SGLang stores them (one-token pages); the prompt looked up
 * is held whole by one worker and half by another, so the walk goes to its end. {@code hashOnly} is the hashing's
 * share.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g"})
public class ExactLookupBenchmark extends AverageTimeBenchmark {

    private static final int WORKERS = 8;
    private static final int PROMPTS_PER_WORKER = 64;
    private static final int BLOCK_TOKENS = 16;

    @Param({"200", "12000"})
    public int promptTokens;

    private final TokenBlocks blocks = new TokenBlocks(BLOCK_TOKENS);
    private ExactKvIndex index;
    private int[] prompt;
    private long engineHash;

    @Setup
    public void prepare() {
        index = new ExactKvIndex(blocks, Long.MAX_VALUE);
        SplittableRandom random = new SplittableRandom(42);
        prompt = tokens(random, promptTokens);
        for (int w = 0; w < WORKERS; w++) {
            String worker = "http://10.0.0." + w + ":30000";
            for (int p = 0; p < PROMPTS_PER_WORKER; p++) {
                store(worker, tokens(random, promptTokens));
            }
        }
        store("http://10.0.0.0:30000", prompt);
        int[] half = new int[promptTokens / 2];
        System.arraycopy(prompt, 0, half, 0, half.length);
        store("http://10.0.0.1:30000", half);
    }

    @Benchmark
    public ExactMatch lookup() {
        return index.match(prompt, KvNamespace.DEFAULT);
    }

    @Benchmark
    public long[] hashOnly() {
        return blocks.hashes(prompt, KvNamespace.DEFAULT);
    }

    /** Stores {@code tokens} on {@code worker} in one event of one-token pages. */
    private void store(String worker, int[] tokens) {
        long[] hashes = new long[tokens.length];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = ++engineHash;
        }
        index.apply(worker, new KvEvent.BlockStored(hashes, null, tokens, 1, null, null, Medium.GPU, null, 0));
    }

    private static int[] tokens(SplittableRandom random, int count) {
        int[] tokens = new int[count];
        for (int i = 0; i < count; i++) {
            tokens[i] = random.nextInt(32_000);
        }
        return tokens;
    }
}
