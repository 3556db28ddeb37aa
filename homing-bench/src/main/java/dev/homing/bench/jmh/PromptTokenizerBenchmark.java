package dev.homing.bench.jmh;

import dev.homing.sim.model.BuiltInTokenizer;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.PromptTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A chat's prompt tokens, as an engine (and the gateway reading its KV events) computes them: the chat template
 * rendered, then the text encoded. {@code demo} is homing-tokenizer's bundled byte-level BPE through HuggingFace's
 * tokenizers and jinjava; {@code built-in} the simulated engine's 4-character tokenizer, for scale. A short chat
 * (a system prompt and a question of 200 characters) and a long one (four turns of 4,000 characters each); with
 * {@code -new} the last turn is new at every call, so its piece misses the tokenizer's piece cache, as a new question
 * does; without it, a short chat is found whole in the tokenizer's chat cache (a long one is too long to be kept
 * whole). {@code render} and {@code encodeRendered} are the template's and the whole-text encoding's shares of what
 * {@code encodeChat} costs without the piece cache. Figures and the command: docs/BENCHMARKS.md, "Cost of the exact
 * view". The template's code takes many iterations to compile under load: give it ten warm-up iterations or more.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-DOPT_OUT_TRACKING=true"})
public class PromptTokenizerBenchmark extends AverageTimeBenchmark {

    @Param({"demo", "built-in"})
    public String tokenizer;

    /** {@code -new}: the last turn is one never seen before each time (a counter at its end), as a new question. */
    @Param({"short", "long", "short-new", "long-new"})
    public String chat;

    private PromptTokenizer prompts;
    private List<ChatTurn> turns;
    private String rendered;
    private long question;

    @Setup(Level.Trial)
    public void prepare() {
        prompts = tokenizer.equals("demo") ? Tokenizers.demo() : BuiltInTokenizer.INSTANCE;
        SplittableRandom random = new SplittableRandom(7);
        turns = chat.startsWith("short")
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
        return prompts.encodeChat(chat.endsWith("-new") ? withNewQuestion() : turns);
    }

    private List<ChatTurn> withNewQuestion() {
        List<ChatTurn> chat = new ArrayList<>(turns);
        ChatTurn last = chat.removeLast();
        chat.add(new ChatTurn(last.role(), last.content() + " " + question++));
        return chat;
    }

    /** The chat template's share: the text rendered, not encoded ({@code demo}; nothing for the built-in one). */
    @Benchmark
    public String render() {
        return prompts instanceof HuggingFaceTokenizer huggingFace ? huggingFace.renderChat(turns) : "";
    }

    /** The native encoding's share: the rendered text encoded whole ({@code demo}; nothing for the built-in one). */
    @Benchmark
    public int[] encodeRendered() {
        return prompts instanceof HuggingFaceTokenizer huggingFace ? huggingFace.encodeText(rendered, false) : null;
    }
}
