package dev.homing.bench.jmh;

import dev.homing.core.tree.PrefixTree;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Inserting text the tree has not seen: the next turn of a conversation, whose last eighth is new. Each measured
 * batch starts from a fresh tree holding the previous turns, so every insert splits an edge and stores new text.
 * Run it in the same JMH run as {@link RoutingDecisionBenchmark}: its {@code scanBaseline} at the same parameters is
 * the ratio's denominator (a single-shot scan of a few hundred prompts is too short to time on its own).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, batchSize = FreshInsertBenchmark.BATCH)
@Measurement(iterations = 10, batchSize = FreshInsertBenchmark.BATCH)
@Fork(value = 1, jvmArgsAppend = {"-Xmx3g", "-XX:+UseCompactObjectHeaders"})
@State(Scope.Thread)
public class FreshInsertBenchmark {

    static final int BATCH = 512;

    @Param({"1024", "16384", "65536"})
    public int promptChars;

    @Param({"8", "64", "512"})
    public int workers;

    private String[] previousTurns;
    private String[] nextTurns;
    private String[] workerIds;
    private PrefixTree tree;
    private int next;

    @Setup(Level.Trial)
    public void prepare() {
        previousTurns = PromptCorpus.prompts(BATCH, promptChars - promptChars / 8, 42);
        SplittableRandom random = new SplittableRandom(9);
        nextTurns = new String[BATCH];
        for (int i = 0; i < BATCH; i++) {
            nextTurns[i] = previousTurns[i] + PromptCorpus.words(random, promptChars / 8);
        }
        workerIds = new String[workers];
        for (int w = 0; w < workers; w++) {
            workerIds[w] = "http://10.0.0." + w + ":30000";
        }
    }

    @Setup(Level.Iteration)
    public void freshTree() {
        tree = new PrefixTree(Long.MAX_VALUE / 4);
        for (int i = 0; i < BATCH; i++) {
            tree.insert(previousTurns[i], workerIds[i % workers]);
        }
        next = 0;
    }

    @Benchmark
    public int insertNextTurn() {
        int i = next++ % BATCH;
        return tree.insert(nextTurns[i], workerIds[i % workers]);
    }
}
