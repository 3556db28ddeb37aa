package dev.homing.bench.jmh;

import dev.homing.sim.model.BuiltInTokenizer;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.PromptTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.util.List;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A chat's prompt tokens, as an engine (and the gateway reading its KV events) computes them: the chat template
 * rendered, then the text encoded. {@code demo} is homing-tokenizer's bundled byte-level BPE through HuggingFace's
 * tokenizers and jinjava; {@code built-in} the simulated engine's 4-character tokenizer, for scale. A short chat
 * (a system prompt and a question of 200 characters) and a long one (four turns of 4,000 characters each).
 *
 * <p>Measured (Temurin 25, 2 shared cores under a load average of 5 to 7, so wide errors), before and after the
 * template was parsed once and only the ids read from the native encoding, the two jars taking turns, two forks each:
 * <pre>
 * java -jar homing-bench/target/benchmarks.jar PromptTokenizerBenchmark.encodeChat -p tokenizer=demo \
 *     -p chat=short,long -wi 8 -w 2 -i 8 -r 2 -f 1
 * </pre>
 * short: 296 and 298 us/op before, 165 and 153 after (0.53x); long: 23.7 and 22.6 ms before, 10.4 and 9.3 after
 * (0.43x). Where the time goes: {@code -prof "stack:lines=2;top=12"}; after, the native encode is most of it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-DOPT_OUT_TRACKING=true"})
@State(Scope.Thread)
public class PromptTokenizerBenchmark {

    @Param({"demo", "built-in"})
    public String tokenizer;

    @Param({"short", "long"})
    public String chat;

    private PromptTokenizer prompts;
    private List<ChatTurn> turns;
    private String rendered;

    @Setup(Level.Trial)
    public void prepare() {
        prompts = tokenizer.equals("demo") ? Tokenizers.demo() : BuiltInTokenizer.INSTANCE;
        SplittableRandom random = new SplittableRandom(7);
        turns = chat.equals("short")
            ? List.of(new ChatTurn("system", "You are a helpful assistant."),
                new ChatTurn("user", PromptCorpus.words(random, 200)))
            : List.of(new ChatTurn("system", PromptCorpus.words(random, 4_000)),
                new ChatTurn("user", PromptCorpus.words(random, 4_000)),
                new ChatTurn("assistant", PromptCorpus.words(random, 4_000)),
                new ChatTurn("user", PromptCorpus.words(random, 4_000)));
        rendered = prompts instanceof HuggingFaceTokenizer huggingFace ? huggingFace.renderChat(turns) : "";
    }

    @TearDown(Level.Trial)
    public void close() {
        if (prompts instanceof HuggingFaceTokenizer huggingFace) {
            huggingFace.close();
        }
    }

    @Benchmark
    public int[] encodeChat() {
        return prompts.encodeChat(turns);
    }

    /** The chat template's share: the text rendered, not encoded ({@code demo} only). */
    @Benchmark
    public String render() {
        return ((HuggingFaceTokenizer) prompts).renderChat(turns);
    }

    /** The native encoding's share: the rendered text encoded whole ({@code demo} only). */
    @Benchmark
    public int[] encodeRendered() {
        return ((HuggingFaceTokenizer) prompts).encodeText(rendered, false);
    }
}
