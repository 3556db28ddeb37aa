package dev.homing.gateway.kvevents;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.kv.TokenAgreement;
import dev.homing.core.request.RequestKind;
import dev.homing.gateway.proxy.ByteSlice;
import dev.homing.gateway.workers.ModelPool;
import dev.homing.gateway.workers.Worker;
import dev.homing.tokenizer.PromptTokenizer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The exact view's part in a routing decision: for a request whose model has a worker with an exact view now, reads
 * the prompt, tokenizes it as the engine will (the gateway's tokenizer, {@code --tokenizer-path}; else the engine's
 * {@code /tokenize}, at one round trip) and looks the tokens up as they come, so the gateway's tokenizer stops one
 * chunk past the last block any engine holds: a long prompt costs what its cached prefix does, not its length (its
 * length is then estimated from the share encoded). Any other request costs nothing: no worker is exact,
 * so the body is not read again. A failure (the template refuses the chat, the engine cannot tokenize) gives no
 * overlay: the request is routed on the tree, and says so.
 *
 * <p>It also hands out the prompt's count, which the answer's usage checks ({@link #checked}): an engine whose
 * tokenizer or template is not the gateway's stores blocks the gateway's tokens never match, so exact routing on it
 * would quietly turn into load balancing. A prompt counted whole anyway is checked at no cost; one whose look-up
 * stopped early is counted whole off the event loop, one a second per model (ten until the model's first verdict),
 * and so are prompts of a model whose workers are all set aside for differing, so that they can come back. Until that
 * first verdict the look-ups are made and checked, not routed on ({@link #UNVERIFIED_LOOKUPS}).
 */
public final class ExactRouting {
    /**
     * With a tokenizer that encodes whole, bodies up to this size are tokenized on the event loop (tens of
     * microseconds); larger ones on a worker thread, so a long prompt's milliseconds never hold the other
     * connections of its event loop.
     */
    private static final int INLINE_BODY_BYTES = 16 * 1024;
    /**
     * With one that hands out chunks, any prompt starts on the event loop, where most end (a chunk past the last
     * block any engine holds, well under a millisecond): a hop to a worker thread and back costs more than that
     * on a busy machine. A prompt still matching after this much time (a long cached conversation whose chunks
     * the tokenizer has not kept) starts again on a worker thread, its chunks so far cached by then.
     */
    private static final long INLINE_NANOS = 2_000_000;
    /**
     * How often, per model, a prompt is counted whole only to check it against the engine's usage: a long prompt
     * takes milliseconds of a worker thread, and one a second keeps the verdict on each worker current.
     */
    private static final long WHOLE_COUNT_NANOS = 1_000_000_000L;
    /**
     * As often while the model's workers together have too few checks for a verdict (at the start), so that it comes
     * within the first requests. For at most {@link #FIRST_WHOLE_COUNTS} counts: engines that report no usage give no
     * verdict, however many are made.
     */
    private static final long FIRST_WHOLE_COUNTS_NANOS = 100_000_000L;
    private static final int FIRST_WHOLE_COUNTS = 64;
    /**
     * Until then, or until the model's tokens are verified (its workers' first checks, {@link TokenAgreement}), its
     * look-ups are not routed on. A view read with tokens the engines do not use sees nothing cached anywhere, and
     * routing on it before the verdict cost the rest of the run: live, multi-turn on 8 engines, the 13 to 17 requests
     * so placed left 84.1% to 84.5% where the tree alone gets 87.6%, at five times its TTFT p99. The engines hold
     * little yet when a fleet starts, so the tree loses nothing there. Engines that report no usage never verify:
     * after this many look-ups the view is trusted anyway.
     */
    private static final int UNVERIFIED_LOOKUPS = 64;
    /**
     * An engine stores a prompt's whole pages only: a block checked in its events ends at least this far before the
     * prompt's end, the largest page engines use (vLLM's blocks are 16 tokens by default, SGLang's pages 1 to 64).
     */
    private static final int LAST_PAGE_TOKENS = 128;

    private final KvEventSubscribers subscribers;
    private final PromptTokenizer tokenizer;
    private final EngineTokenize engine;
    private final Vertx vertx;
    /** By model, its checks' bookkeeping. */
    private final Map<String, ModelChecks> checks = new ConcurrentHashMap<>();

    /**
     * A model's whole counts (when the last started, {@link System#nanoTime()}, and how many were made) and its
     * look-ups before its tokens were verified.
     */
    private record ModelChecks(AtomicLong lastWholeNanos, AtomicInteger wholeCounts, AtomicInteger unverified) {
        static ModelChecks start(long nowNanos) {
            return new ModelChecks(new AtomicLong(nowNanos - WHOLE_COUNT_NANOS), new AtomicInteger(),
                    new AtomicInteger());
        }
    }

    /**
     * @param tokenizer the models' tokenizer, or null to ask the engines
     */
    public ExactRouting(KvEventSubscribers subscribers, PromptTokenizer tokenizer, HttpClient client, Vertx vertx) {
        this.subscribers = subscribers;
        this.tokenizer = tokenizer;
        this.engine = new EngineTokenize(client);
        this.vertx = vertx;
    }

    /** Whether the gateway tokenizes itself, rather than asking the engines. */
    public boolean tokenizesLocally() {
        return tokenizer != null;
    }

    /**
     * The exact view of this request, or null when there is none to look at (no worker of the model is exact now,
     * and no check is due; or the request names no prompt an engine caches by prefix). The future fails only where
     * the prompt cannot be tokenized; the caller routes on the tree then.
     */
    public Future<ExactLookup> lookup(ModelPool pool, RequestKind kind, ByteSlice body) {
        long started = System.nanoTime();
        String model = pool.model();
        ExactViews views = subscribers.views(model);
        if (!views.anyExact()) {
            // Every worker is set aside; where some are for counting otherwise, a check now and then.
            return tokenizer == null || !subscribers.tokensDiffer(model) ? null : checkOnly(model, kind, body);
        }
        ExactQuery query = ExactQuery.read(kind, body);
        if (query == null) {
            return null;
        }
        EnginePrompt prompt = query.prompt();
        if (tokenizer != null && tokenizer.encodesInChunks() && !(prompt instanceof EnginePrompt.Tokens)) {
            return inChunks(views, query, model, started);
        }
        ExactViews.PromptWalk walk = views.walk(query.namespace());
        return tokens(pool, prompt, walk, body.length()).map(share -> lookup(walk, share, query, model, started));
    }

    /** The look-up on the event loop while it is quick, else again on a worker thread (see {@link #INLINE_NANOS}). */
    private Future<ExactLookup> inChunks(ExactViews views, ExactQuery query, String model, long started) {
        ExactViews.PromptWalk walk = views.walk(query.namespace());
        long inlineFrom = System.nanoTime();
        boolean[] handedOff = {false};
        double share;
        try {
            share = query.prompt().tokensInRuns(tokenizer, ids -> {
                boolean open = walk.accept(ids);
                handedOff[0] = open && System.nanoTime() - inlineFrom > INLINE_NANOS;
                return open && !handedOff[0];
            });
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
        if (!handedOff[0]) {
            return Future.succeededFuture(lookup(walk, share, query, model, started));
        }
        return vertx.executeBlocking(() -> {
            ExactViews.PromptWalk whole = views.walk(query.namespace());
            return lookup(whole, query.prompt().tokensInRuns(tokenizer, whole), query, model, started);
        }, false);
    }

    private ExactLookup lookup(ExactViews.PromptWalk walk, double share, ExactQuery query, String model,
                               long started) {
        ExactOverlay overlay = walk.overlay(promptTokens(walk, share));
        subscribers.lookedUp(System.nanoTime() - started);
        Future<Integer> counted = !query.checkable() ? null
                : share >= 1 ? Future.succeededFuture(overlay.promptTokens())
                : tokenizer != null && wholeCountDue(model) ? countWhole(query) : null;
        OptionalLong unheld = query.checkable() ? walk.unheldBlock(overlay.promptTokens(), LAST_PAGE_TOKENS)
                : OptionalLong.empty();
        return new ExactLookup(verified(model) ? overlay : null, counted, unheld);
    }

    /** Whether {@code model}'s look-ups may be routed on: its tokens verified, or too many look-ups waited for it. */
    private boolean verified(String model) {
        if (!subscribers.tokensUnsettled(model)) {
            return true;
        }
        AtomicInteger unverified = checks(model).unverified();
        return unverified.get() >= UNVERIFIED_LOOKUPS || unverified.incrementAndGet() > UNVERIFIED_LOOKUPS;
    }

    private ModelChecks checks(String model) {
        return checks.computeIfAbsent(model, m -> ModelChecks.start(System.nanoTime()));
    }

    /** No overlay, and the prompt counted whole when a count is due (the body is read only then); else null. */
    private Future<ExactLookup> checkOnly(String model, RequestKind kind, ByteSlice body) {
        if (!wholeCountDue(model)) {
            return null;
        }
        ExactQuery query = ExactQuery.read(kind, body);
        return query == null || !query.checkable() ? null
                : Future.succeededFuture(new ExactLookup(null, countWhole(query), OptionalLong.empty()));
    }

    private Future<Integer> countWhole(ExactQuery query) {
        return vertx.executeBlocking(() -> query.prompt().tokens(tokenizer).length, false);
    }

    /**
     * Whether a prompt of {@code model} is to be counted whole on a worker thread, for a check, now: at most once
     * per {@link #WHOLE_COUNT_NANOS} ({@link #FIRST_WHOLE_COUNTS_NANOS} until the model's first verdict). A look-up
     * that stopped early only estimated the prompt's length, and a worker set aside is not looked up at all:
     * without these counts a tokenizer that differs for long prompts would never show.
     */
    private boolean wholeCountDue(String model) {
        long now = System.nanoTime();
        ModelChecks counts = checks(model);
        long was = counts.lastWholeNanos().get();
        long since = now - was;
        boolean hurry = counts.wholeCounts().get() < FIRST_WHOLE_COUNTS && subscribers.tokensUnsettled(model);
        long interval = hurry ? FIRST_WHOLE_COUNTS_NANOS : WHOLE_COUNT_NANOS;
        if (since < interval || !counts.lastWholeNanos().compareAndSet(was, now)) {
            return false;
        }
        counts.wholeCounts().incrementAndGet();
        return true;
    }

    /**
     * The engine of {@code workerUrl} answered a request whose prompt the gateway counted {@code countedTokens}
     * tokens with a usage of {@code promptTokens}: compared, and counted towards whether its engine tokenizes as
     * the gateway does.
     */
    public void checked(String workerUrl, int countedTokens, long promptTokens) {
        subscribers.tokensChecked(workerUrl, countedTokens, promptTokens);
    }

    /**
     * The engine of {@code workerUrl} answered, without usage, a prompt whose own block {@code ownHash} no engine held
     * at its look-up ({@link ExactLookup#unheldBlock}): its events must show the block soon, and whether they do
     * counts as a check of its tokens, as a usage would.
     */
    public void blockStored(String workerUrl, long ownHash) {
        subscribers.blockStored(workerUrl, ownHash);
    }

    /**
     * Hands the prompt's tokens to {@code walk}, which stops the tokenizer past the last block any engine holds;
     * the future gives the share of the prompt's text encoded.
     */
    private Future<Double> tokens(ModelPool pool, EnginePrompt prompt, ExactViews.PromptWalk walk, int bodyBytes) {
        if (prompt instanceof EnginePrompt.Tokens || tokenizer != null && bodyBytes <= INLINE_BODY_BYTES) {
            try {
                return Future.succeededFuture(prompt.tokensInRuns(tokenizer, walk));
            } catch (RuntimeException e) {
                return Future.failedFuture(e);
            }
        }
        if (tokenizer != null) {
            return vertx.executeBlocking(() -> prompt.tokensInRuns(tokenizer, walk), false);
        }
        Worker asked = pool.workers().stream().filter(Worker::available).findFirst().orElse(null);
        return asked == null ? Future.failedFuture("no worker to tokenize the prompt")
                : engine.tokens(asked, pool.model(), prompt).map(ids -> {
                    walk.accept(ids);
                    return 1.0;
                });
    }

    /**
     * The prompt's tokens: counted when all were encoded, else estimated from the share of the text encoded (the
     * rest of a prompt no engine holds was not encoded; the estimate only weighs the cached tokens against the rest).
     */
    private static int promptTokens(ExactViews.PromptWalk walk, double share) {
        double tokens = share >= 1 || share <= 0 ? walk.tokens() : Math.ceil(walk.tokens() / share);
        return (int) Math.min(Integer.MAX_VALUE, tokens);
    }

    /**
     * A request placed on {@code workerUrl} by its exact view, sent at {@code sentNanos}, was prefilled with
     * {@code uncachedTokens} tokens its engine did not hold: a block's worth or more must show in its events soon, or
     * its stream counts as gone.
     */
    public void prefilled(String workerUrl, long sentNanos, int uncachedTokens) {
        if (uncachedTokens >= subscribers.blockTokens()) {
            subscribers.expectEvents(workerUrl, sentNanos, System.nanoTime());
        }
    }
}
