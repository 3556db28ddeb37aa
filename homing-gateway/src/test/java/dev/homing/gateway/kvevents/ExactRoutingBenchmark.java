package dev.homing.gateway.kvevents;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvEventBatch;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.Medium;
import dev.homing.core.kv.TokenBlocks;
import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import dev.homing.sim.model.PseudoWords;
import dev.homing.tokenizer.ChatTurn;
import dev.homing.tokenizer.HuggingFaceTokenizer;
import dev.homing.tokenizer.Tokenizers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
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
 * The exact view's whole per-request work for a short chat (and a long raw prompt, below), as
 * {@link ExactRouting#lookup} does it on the event loop with the gateway's own tokenizer: the body's bytes read for
 * the prompt and namespace ({@link ExactQuery}), the chat template rendered and the text encoded piece by piece (the
 * demo tokenizer), the tokens hashed into blocks and looked up in the model's {@link ExactViews} into an
 * {@link ExactOverlay}. Eight workers, all exact; each holds
 * 64 chats of the same system prompt and other questions, stored as SGLang stores them (one-token pages); the chat
 * measured is held whole by one worker and half by another. With {@code chat=short-new} the question is new at every
 * call (a counter at its end), so its piece misses the tokenizer's piece cache, as a new question does; building that
 * body is part of the measure. {@code read}, {@code tokens} and {@code lookup} are the three steps' shares (run them
 * with {@code chat=short}).
 *
 * <p>The {@code longPrompt} benchmarks take a long raw prompt, the Mooncake trace's kind (about 48,000 characters
 * of random words): the first 600 words a worker holds, then text new at every call, as most of a Mooncake prompt
 * is. {@code longPromptEncodeAll} encodes the whole prompt and looks it up; {@code longPromptWalk} looks the tokens
 * up as the tokenizer hands them out and stops it one chunk past the held prefix, as {@link ExactRouting} does;
 * {@code longPromptText} is what building the prompt costs both.
 *
 * <p>{@code conversationTurn} is a turn of the live multi-turn workload: a system prompt of 2,000 words and three
 * earlier turns (a question of 100 words, an answer of 200), all held by one worker, then a new question of 100 words
 * at every call; body bytes to overlay, as {@code overlay}. Figures and the command: docs/BENCHMARKS.md, "Cost of the
 * exact view".
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-DOPT_OUT_TRACKING=true"})
@State(Scope.Thread)
public class ExactRoutingBenchmark {

    private static final int WORKERS = 8;
    private static final int CHATS_PER_WORKER = 64;
    private static final int BLOCK_TOKENS = 16;
    private static final String SYSTEM = "You are a helpful assistant.";
    /** 50 pseudo-words: a question of 199 characters. */
    private static final int QUESTION_WORDS = 50;
    /**
     * Words of the long prompt: 600 held, 7,400 new, of 2 to 8 random letters and a space (about 48,000
     * characters); unlike the simulated engine's answers, they are not the demo tokenizer's own words.
     */
    private static final int HELD_WORDS = 600;
    private static final int LONG_WORDS = 8_000;
    /** The conversation's system prompt, questions and answers, in words. */
    private static final int SYSTEM_WORDS = 2_000;
    private static final int TURN_QUESTION_WORDS = 100;
    private static final int TURN_ANSWER_WORDS = 200;
    private static final int EARLIER_TURNS = 3;

    /** {@code -new}: the question is one never seen before at each call. */
    @Param({"short", "short-new"})
    public String chat;

    private HuggingFaceTokenizer tokenizer;
    private ExactViews views;
    private String question;
    private byte[] body;
    private ExactQuery query;
    private int[] tokens;
    private long calls;
    private String heldText;
    private List<ChatTurn> conversation;

    @Setup(Level.Trial)
    public void prepare() {
        tokenizer = Tokenizers.demo();
        views = new ExactViews(new TokenBlocks(BLOCK_TOKENS), Long.MAX_VALUE);
        question = PseudoWords.text(7, 0, QUESTION_WORDS, QUESTION_WORDS);
        long engineHash = 0;
        for (int w = 0; w < WORKERS; w++) {
            String worker = "http://10.0.0." + w + ":30000";
            views.exact(worker, true);
            for (int c = 0; c < CHATS_PER_WORKER; c++) {
                String other = PseudoWords.text(1_000L * w + c + 100, 0, QUESTION_WORDS, QUESTION_WORDS);
                engineHash = store(worker, chatTokens(other), engineHash);
            }
        }
        int[] measured = chatTokens(question);
        engineHash = store("http://10.0.0.0:30000", measured, engineHash);
        store("http://10.0.0.1:30000", Arrays.copyOf(measured, measured.length / 2), engineHash);
        heldText = randomWords(1, HELD_WORDS);
        int[] held = tokenizer.encodeText(heldText);
        store("http://10.0.0.2:30000", Arrays.copyOf(held, held.length / BLOCK_TOKENS * BLOCK_TOKENS), engineHash);
        conversation = conversation();
        List<ChatTurn> heldTurns = conversation.subList(0, conversation.size() - 1);
        store("http://10.0.0.3:30000", tokenizer.encodeChat(heldTurns), engineHash);
        body = body(question);
        query = ExactQuery.read(RequestKind.CHAT, ByteSlice.of(body));
        tokens = query.prompt().tokens(tokenizer);
    }

    @TearDown(Level.Trial)
    public void close() {
        tokenizer.close();
    }

    /** Body bytes to overlay, as {@link ExactRouting#lookup} for a body tokenized on the event loop. */
    @Benchmark
    public ExactOverlay overlay() {
        byte[] bytes = chat.endsWith("-new") ? body(question + " " + calls++) : body;
        ExactQuery read = ExactQuery.read(RequestKind.CHAT, ByteSlice.of(bytes));
        return views.lookup(read.prompt().tokens(tokenizer), read.namespace());
    }

    /** The body read a second time, for the prompt and namespace. */
    @Benchmark
    public ExactQuery read() {
        return ExactQuery.read(RequestKind.CHAT, ByteSlice.of(body));
    }

    /** The chat's tokens: the template rendered, its pieces encoded or found in the piece cache. */
    @Benchmark
    public int[] tokens() {
        return query.prompt().tokens(tokenizer);
    }

    /** The tokens hashed into blocks and looked up over every exact worker. */
    @Benchmark
    public ExactOverlay lookup() {
        return views.lookup(tokens, KvNamespace.DEFAULT);
    }

    /** A long prompt: the held text, then new text. */
    @Benchmark
    public String longPromptText() {
        return heldText + randomWords(calls++ + 100, LONG_WORDS - HELD_WORDS);
    }

    private static String randomWords(long seed, int words) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
        StringBuilder text = new StringBuilder(words * 6);
        for (int w = 0; w < words; w++) {
            for (int c = 2 + random.nextInt(7); c > 0; c--) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            text.append(' ');
        }
        return text.toString();
    }

    /** The long prompt encoded whole, then looked up. */
    @Benchmark
    public ExactOverlay longPromptEncodeAll() {
        return views.lookup(tokenizer.encodeText(longPromptText()), KvNamespace.DEFAULT);
    }

    /** The long prompt looked up as it is encoded, the encoding stopped past the held prefix. */
    @Benchmark
    public ExactOverlay longPromptWalk() {
        String text = longPromptText();
        ExactViews.PromptWalk walk = views.walk(KvNamespace.DEFAULT);
        double share = tokenizer.encodeTextInRuns(text, walk);
        return walk.overlay((int) Math.ceil(walk.tokens() / share));
    }

    /** A turn of a long conversation: body bytes to overlay, its question new at each call. */
    @Benchmark
    public ExactOverlay conversationTurn() {
        String next = PseudoWords.text(calls++ + 1_000_000L, 0, TURN_QUESTION_WORDS, TURN_QUESTION_WORDS);
        StringBuilder json = new StringBuilder("{\"model\":\"demo\",\"stream\":true,\"max_tokens\":200,\"messages\":[");
        for (ChatTurn turn : conversation.subList(0, conversation.size() - 1)) {
            json.append("{\"role\":\"").append(turn.role()).append("\",\"content\":\"").append(turn.content())
                .append("\"},");
        }
        json.append("{\"role\":\"user\",\"content\":\"").append(next).append("\"}]}");
        ExactQuery read = ExactQuery.read(RequestKind.CHAT, ByteSlice.of(json.toString().getBytes(StandardCharsets.UTF_8)));
        ExactViews.PromptWalk walk = views.walk(read.namespace());
        double share = read.prompt().tokensInRuns(tokenizer, walk);
        return walk.overlay((int) Math.ceil(walk.tokens() / share));
    }

    /** The system prompt, the earlier turns, and a last question (replaced at each call of {@link #conversationTurn}). */
    private static List<ChatTurn> conversation() {
        List<ChatTurn> turns = new java.util.ArrayList<>();
        turns.add(new ChatTurn("system", PseudoWords.text(11, 0, SYSTEM_WORDS, SYSTEM_WORDS)));
        for (int t = 0; t < EARLIER_TURNS; t++) {
            turns.add(new ChatTurn("user", PseudoWords.text(20 + t, 0, TURN_QUESTION_WORDS, TURN_QUESTION_WORDS)));
            turns.add(new ChatTurn("assistant", PseudoWords.text(30 + t, 0, TURN_ANSWER_WORDS, TURN_ANSWER_WORDS)));
        }
        turns.add(new ChatTurn("user", PseudoWords.text(40, 0, TURN_QUESTION_WORDS, TURN_QUESTION_WORDS)));
        return turns;
    }

    private int[] chatTokens(String userQuestion) {
        return tokenizer.encodeChat(List.of(new ChatTurn("system", SYSTEM), new ChatTurn("user", userQuestion)));
    }

    private static byte[] body(String userQuestion) {
        return ("{\"model\":\"demo\",\"stream\":false,\"max_tokens\":64,\"messages\":["
                + "{\"role\":\"system\",\"content\":\"" + SYSTEM + "\"},"
                + "{\"role\":\"user\",\"content\":\"" + userQuestion + "\"}]}").getBytes(StandardCharsets.UTF_8);
    }

    /** Stores {@code tokens} on {@code worker} in one event of one-token pages; returns the last engine hash used. */
    private long store(String worker, int[] tokens, long lastHash) {
        long[] hashes = new long[tokens.length];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = ++lastHash;
        }
        KvEvent stored = new KvEvent.BlockStored(hashes, null, tokens, 1, null, null, Medium.GPU, null, 0);
        views.apply(worker, new KvEventBatch(0, List.of(stored), OptionalInt.empty(), 0));
        return lastHash;
    }
}
