package dev.homing.bench.jmh;

import dev.homing.core.policy.reference.CacheAwarePolicy;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.affinity.LoadAwareAffinityPolicy;
import dev.homing.core.policy.PolicyConfig;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.WorkerView;
import dev.homing.core.tree.PrefixMatch;
import dev.homing.core.tree.PrefixTree;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * The cost of routing one request, beside the physical floor of looking at its prompt once.
 *
 * <p>{@code scanBaseline} is one {@code Arrays.mismatch} over the prompt's characters against an equal copy: no
 * router can decide on a prefix without reading it at least this way. The other benchmarks are reported as multiples
 * of it. The tree holds {@link #CONVERSATIONS} prompts spread over the workers, so each measured prompt is fully
 * matched and its insert revisits an existing path (the steady state of hit-heavy traffic); fresh inserts are
 * measured by {@link FreshInsertBenchmark}.
 */
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-XX:+UseCompactObjectHeaders"})
public class RoutingDecisionBenchmark extends AverageTimeBenchmark {

    static final int CONVERSATIONS = DecisionFixture.CONVERSATIONS;

    @Param({"1024", "16384", "65536"})
    public int promptChars;

    @Param({"8", "64", "512"})
    public int workers;

    private String[] prompts;
    private char[][] promptArrays;
    private char[][] promptCopies;
    private List<WorkerView> workerViews;
    private PrefixTree tree;
    private CacheAwarePolicy policy;
    private LoadAwareAffinityPolicy affinity;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        DecisionFixture fixture = new DecisionFixture(promptChars, workers);
        prompts = fixture.prompts;
        workerViews = fixture.workers;
        promptArrays = new char[prompts.length][];
        promptCopies = new char[prompts.length][];
        for (int i = 0; i < prompts.length; i++) {
            promptArrays[i] = prompts[i].toCharArray();
            promptCopies[i] = prompts[i].toCharArray();
        }
        PolicyConfig config = PolicyConfig.DEFAULTS.withSeed(1);
        tree = new PrefixTree(config.maxTreeSize());
        for (int i = 0; i < prompts.length; i++) {
            tree.insert(prompts[i], workerViews.get(i % workers).id());
        }
        policy = fixture.warmed(new CacheAwarePolicy(config, System::nanoTime));
        affinity = fixture.warmed(new LoadAwareAffinityPolicy(config, System::nanoTime));
    }

    private int nextPrompt() {
        int i = next;
        next = (i + 1) % CONVERSATIONS;
        return i;
    }

    @Benchmark
    public int scanBaseline() {
        int i = nextPrompt();
        return Arrays.mismatch(promptArrays[i], promptCopies[i]);
    }

    @Benchmark
    public PrefixMatch treeMatch() {
        return tree.match(prompts[nextPrompt()]);
    }

    @Benchmark
    public int treeInsert() {
        int i = nextPrompt();
        return tree.insert(prompts[i], workerViews.get(i % workers).id());
    }

    /** Match, select and insert: everything cache_aware does for one request. */
    @Benchmark
    public Decision cacheAwareDecision() {
        return policy.select(workerViews, RoutingRequest.ofText(prompts[nextPrompt()]));
    }

    /** The same decision by load_aware_affinity, whose cost must stay within 1.5x of cache_aware's. */
    @Benchmark
    public Decision affinityDecision() {
        return affinity.select(workerViews, RoutingRequest.ofText(prompts[nextPrompt()]));
    }
}
