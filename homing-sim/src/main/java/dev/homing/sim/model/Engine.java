package dev.homing.sim.model;

import dev.homing.core.kv.KvEvent;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The simulated engine: a continuous-batching scheduler over a {@link KvCache}, as a pure state machine in virtual
 * time. Callers say when a request arrives ({@link #submit}), when one is abandoned ({@link #abort}) and how far time
 * has gone ({@link #advanceTo}); the engine answers with the {@link Progress} of every step that ended by then. It
 * never reads a clock or sets a timer: the HTTP server drives it in scaled real time and the offline simulator drives
 * the very same object from an event queue, asking {@link #nextEventNanos} when to come back.
 *
 * <p><b>Scheduling</b>, one step at a time, as SGLang's scheduler does with its defaults:
 * <ol>
 *   <li>If requests wait and the batch has room, the step is a <i>prefill</i>: first the unfinished chunk of a long
 *       prompt, then waiting requests in arrival order, while the batch has fewer than {@code maxRunningRequests}
 *       requests, the step fewer than {@code chunkedPrefillSize} uncached tokens, and the pool room for the request's
 *       uncached prompt plus all its output. A prompt that does not fit the token budget is chunked and continues
 *       first in the next prefill step. Decoding pauses during a prefill step.</li>
 *   <li>Otherwise, if requests are running, the step is a <i>decode</i>: every running request emits one token.</li>
 * </ol>
 * A request's cache hit is the prefix found when its prefill starts (at most its prompt less one token, which must be
 * computed to produce the first output token). Computed prompt tokens enter the cache at the end of each prefill step,
 * so a prefix still being computed by another request is not a hit; prompt and output enter it when the request ends.
 * Step durations come from the {@link TimingModel}.
 *
 * <p>Output reservation is not overcommitted (the whole {@code max_new_tokens} is reserved at admission), so running
 * requests are never preempted; SGLang instead overcommits and retracts requests when decode runs out of room.
 *
 * <p><b>Transferred requests</b> ({@link #submitTransferred}) are a decode engine's: their prompt's KV was computed by
 * a prefill engine and arrived whole. They queue with the others; at the head of the queue, when the batch and the
 * pool have room for the prompt and all the output, they join the decoding batch without a prefill step, never match
 * or enter the cache, and emit every output token from decode steps (the first one is the prefill's token, relayed).
 * An engine that is never given one schedules exactly as above.
 *
 * <p>Invariants: virtual time never goes back (every call that takes a time only moves it forward); at most one step
 * is in progress; a request in the batch holds room for its uncached prompt and all its output from its admission
 * to its end or abort (reserved in the {@link KvCache} before it is admitted), so it is never preempted. Guarded by
 * the one private step loop every call goes through and by the cache's refusal of a reservation that does not fit.
 *
 * <p>Not thread-safe: one driver owns it.
 */
public final class Engine implements VirtualTimeModel<Progress> {
    private final EngineConfig config;
    private final KvCache cache;
    private final ArrayDeque<Sequence> waiting = new ArrayDeque<>();
    private final List<Sequence> decoding = new ArrayList<>();
    private final Map<Long, Sequence> active = new HashMap<>();
    private final List<Progress> outbox = new ArrayList<>();
    /** Hears each step's KV events as one batch; none until {@link #publishKvEvents} names one. */
    private KvEventSink kvEvents;
    private Sequence chunked;
    private Step step;
    private long now;
    private long lastRequestId;
    private long promptTokensTotal;
    private long cachedTokensTotal;
    private long generationTokensTotal;
    private long finishedRequestsTotal;

    public Engine(EngineConfig config) {
        this.config = config;
        this.cache = new KvCache(config.kvTokens(), config.pageSize());
    }

    public EngineConfig config() {
        return config;
    }

    /** The engine's virtual time: the latest time it was told of. */
    public long nowNanos() {
        return now;
    }

    /**
     * Queues a request arriving at {@code atNanos} (not before {@link #nowNanos}).
     *
     * @return the request's id, used in its {@link Progress} and by {@link #abort}
     * @throws IllegalArgumentException if the request could never run here (empty prompt, longer than the context or
     *                                  the KV pool)
     */
    public long submit(GenerationRequest request, long atNanos) {
        check(request);
        return queue(request, atNanos, false, 0);
    }

    /**
     * Queues, at {@code atNanos}, a request whose prompt's KV has arrived from a prefill engine, with the
     * {@code cachedTokens} that engine found in its cache (reported in the request's progress, as the client's hit).
     *
     * @return the request's id
     * @throws IllegalArgumentException as {@link #submit}
     */
    public long submitTransferred(GenerationRequest request, int cachedTokens, long atNanos) {
        check(request);
        return queue(request, atNanos, true, cachedTokens);
    }

    /**
     * Refuses a request that could never run here.
     *
     * @throws IllegalArgumentException for an empty prompt, a negative output length, or a prompt and output longer
     *                                  than the context or the KV pool
     */
    public void check(GenerationRequest request) {
        int prompt = request.promptTokens().length;
        if (prompt == 0) {
            throw new IllegalArgumentException("the prompt is empty");
        }
        if (request.maxNewTokens() < 0) {
            throw new IllegalArgumentException("max_new_tokens must not be negative");
        }
        long total = (long) prompt + request.maxNewTokens();
        if (total > config.contextLength()) {
            throw new IllegalArgumentException("prompt (" + prompt + " tokens) plus max_new_tokens ("
                + request.maxNewTokens() + ") exceeds the context length of " + config.contextLength() + " tokens");
        }
        if (total > config.kvTokens()) {
            throw new IllegalArgumentException("prompt (" + prompt + " tokens) plus max_new_tokens ("
                + request.maxNewTokens() + ") exceeds the KV cache of " + config.kvTokens() + " tokens");
        }
    }

    private long queue(GenerationRequest request, long atNanos, boolean transferred, int cachedTokens) {
        runUntil(atNanos);
        Sequence sequence = new Sequence(++lastRequestId, request, now, config.seed());
        sequence.transferred = transferred;
        sequence.cached = cachedTokens;
        waiting.add(sequence);
        active.put(sequence.id, sequence);
        startStepIfIdle();
        endKvBatch();
        return sequence.id;
    }

    /** Lets virtual time reach {@code atNanos}; returns the progress of every step that ended since the last call. */
    @Override
    public List<Progress> advanceTo(long atNanos) {
        runUntil(atNanos);
        List<Progress> done = List.copyOf(outbox);
        outbox.clear();
        return done;
    }

    /** When the step in progress ends, or {@link Long#MAX_VALUE} when the engine is idle. */
    @Override
    public long nextEventNanos() {
        return step == null ? Long.MAX_VALUE : step.endNanos;
    }

    /**
     * Abandons a request at {@code atNanos} (its client went away): its slot, its cache lock and its reserved tokens
     * are freed at once; a step already computing it finishes without it.
     *
     * @return false if the request is unknown or already finished
     */
    public boolean abort(long requestId, long atNanos) {
        runUntil(atNanos);
        Sequence sequence = active.remove(requestId);
        if (sequence == null) {
            return false;
        }
        sequence.aborted = true;
        if (sequence.lock == null) {
            waiting.remove(sequence);
            return true;
        }
        if (chunked == sequence) {
            chunked = null;
        }
        decoding.remove(sequence);
        cache.unlock(sequence.lock);
        cache.release(sequence.reserved);
        startStepIfIdle();
        endKvBatch();
        return true;
    }

    /**
     * Empties the KV cache if no request is waiting or running, as SGLang's {@code /flush_cache} does.
     *
     * @return false, with nothing flushed, when the engine is busy
     */
    public boolean flushCache(long atNanos) {
        runUntil(atNanos);
        if (!active.isEmpty()) {
            return false;
        }
        cache.flush();
        endKvBatch();
        return true;
    }

    /**
     * Empties the KV cache busy or not, as a restart loses it; what running requests hold stays theirs (a real
     * restart would fail them, and the simulated one keeps them answering).
     */
    public void loseCache(long atNanos) {
        runUntil(atNanos);
        cache.flush();
        endKvBatch();
    }

    public EngineStats stats() {
        long ownTokens = 0;
        for (Sequence sequence : active.values()) {
            if (sequence.lock != null) {
                ownTokens += sequence.prefilled + sequence.generated - sequence.lockedLength;
            }
        }
        KvCache.Occupancy slots = cache.occupancy();
        return new EngineStats(active.size() - waiting.size(), waiting.size(),
            (int) (slots.cachedTokens() + ownTokens), slots.cachedTokens(), slots.capacity(),
            promptTokensTotal, cachedTokensTotal, generationTokensTotal, finishedRequestsTotal);
    }

    /**
     * Tells {@code sink} every change of the KV cache from now on (SGLang's KV events), during the step that makes
     * it; call before the first request.
     */
    public void publishKvEvents(Consumer<KvEvent> sink) {
        publishKvEvents(new KvEventSink() {
            @Override
            public void accept(KvEvent event) {
                sink.accept(event);
            }

            @Override
            public void batchEnded() {
            }
        });
    }

    /**
     * As {@link #publishKvEvents(Consumer)}, with the end of each step's batch: after every step, and after every
     * call that may have changed the cache in between (a submission's admission, an abort, a flush).
     */
    public void publishKvEvents(KvEventSink sink) {
        cache.publishTo(sink);
        kvEvents = sink;
    }

    private void endKvBatch() {
        if (kvEvents != null) {
            kvEvents.batchEnded();
        }
    }

    /** The cache, for tests and for the offline simulator's reports; read it, do not change it. */
    KvCache cache() {
        return cache;
    }

    private void runUntil(long atNanos) {
        while (step != null && step.endNanos <= atNanos) {
            Step done = step;
            step = null;
            now = done.endNanos;
            if (done.prefill) {
                completePrefill(done);
            } else {
                completeDecode(done);
            }
            startStepIfIdle();
            endKvBatch();
        }
        now = Math.max(now, atNanos);
    }

    private void startStepIfIdle() {
        if (step != null) {
            return;
        }
        admitTransferred();
        step = formPrefill();
        if (step == null && !decoding.isEmpty()) {
            long context = 0;
            for (Sequence sequence : decoding) {
                context += sequence.prompt + sequence.generated;
            }
            step = new Step(false, List.copyOf(decoding), null,
                now + config.timing().decodeNanos(decoding.size(), context));
        }
    }

    private Step formPrefill() {
        List<Sequence> members = new ArrayList<>();
        List<Integer> chunks = new ArrayList<>();
        int budget = config.chunkedPrefillSize();
        if (chunked != null) {
            int chunk = Math.min(budget, chunked.prompt - chunked.prefilled);
            members.add(chunked);
            chunks.add(chunk);
            budget -= chunk;
        }
        int batch = active.size() - waiting.size();
        while (budget > 0 && !waiting.isEmpty() && batch < config.maxRunningRequests()) {
            Sequence next = waiting.peek();
            if (!admit(next)) {
                break;
            }
            waiting.poll();
            batch++;
            int uncached = next.prompt - next.prefilled;
            int chunk = Math.min(budget, uncached);
            members.add(next);
            chunks.add(chunk);
            budget -= chunk;
            if (chunk < uncached) {
                chunked = next;
            }
        }
        if (members.isEmpty()) {
            return null;
        }
        long tokens = config.chunkedPrefillSize() - budget;
        int[] chunkSizes = chunks.stream().mapToInt(Integer::intValue).toArray();
        return new Step(true, members, chunkSizes, now + config.timing().prefillNanos(tokens));
    }

    /** Moves transferred requests at the head of the queue into the decoding batch while it and the pool have room. */
    private void admitTransferred() {
        int batch = active.size() - waiting.size();
        while (!waiting.isEmpty() && waiting.peek().transferred && batch < config.maxRunningRequests()) {
            Sequence next = waiting.peek();
            int reserve = next.prompt + next.maxNew;
            if (!cache.reserve(reserve)) {
                return;
            }
            waiting.poll();
            batch++;
            // It holds no prefix of the tree: the empty one, which pins nothing.
            next.lock = cache.match(next.tokens, 0).node();
            next.prefilled = next.prompt;
            next.reserved = reserve;
            promptTokensTotal += next.prompt;
            cachedTokensTotal += next.cached;
            if (next.maxNew == 0) {
                finish(next);
            } else {
                decoding.add(next);
            }
        }
    }

    /** Matches the cached prefix, pins it and reserves the rest; false if the pool has no room yet. */
    private boolean admit(Sequence sequence) {
        KvCache.Match match = cache.match(sequence.tokens, sequence.prompt - 1);
        cache.lock(match.node());
        int reserve = sequence.prompt - match.length() + sequence.maxNew;
        if (!cache.reserve(reserve)) {
            cache.unlock(match.node());
            return false;
        }
        sequence.lock = match.node();
        sequence.lockedLength = match.length();
        sequence.prefilled = match.length();
        sequence.cached = match.length();
        sequence.reserved = reserve;
        promptTokensTotal += sequence.prompt;
        cachedTokensTotal += match.length();
        return true;
    }

    private void completePrefill(Step done) {
        for (int i = 0; i < done.members.size(); i++) {
            Sequence sequence = done.members.get(i);
            if (sequence.aborted) {
                continue;
            }
            sequence.prefilled += done.chunks[i];
            commit(sequence, sequence.prefilled);
            if (sequence.prefilled < sequence.prompt) {
                continue;
            }
            if (chunked == sequence) {
                chunked = null;
            }
            if (sequence.maxNew == 0) {
                finish(sequence);
                continue;
            }
            emitToken(sequence);
            if (sequence.generated == sequence.maxNew) {
                finish(sequence);
            } else {
                decoding.add(sequence);
            }
        }
    }

    private void completeDecode(Step done) {
        for (Sequence sequence : done.members) {
            if (sequence.aborted) {
                continue;
            }
            emitToken(sequence);
            if (sequence.generated == sequence.maxNew) {
                decoding.remove(sequence);
                finish(sequence);
            }
        }
    }

    private void emitToken(Sequence sequence) {
        sequence.generated++;
        generationTokensTotal++;
        outbox.add(sequence.progress(now, sequence.generated == sequence.maxNew));
    }

    private void finish(Sequence sequence) {
        if (!sequence.transferred) {
            // The last output token was sampled but never run through the model, so it has no KV to keep.
            commit(sequence, sequence.prompt + Math.max(0, sequence.generated - 1));
        }
        cache.unlock(sequence.lock);
        cache.release(sequence.reserved);
        active.remove(sequence.id);
        finishedRequestsTotal++;
        if (sequence.maxNew == 0) {
            outbox.add(sequence.progress(now, true));
        }
    }

    private void commit(Sequence sequence, int computed) {
        KvCache.Match lock = cache.commit(sequence.tokens, computed, sequence.lock, sequence.lockedLength);
        sequence.reserved -= lock.length() - sequence.lockedLength;
        sequence.lock = lock.node();
        sequence.lockedLength = lock.length();
    }

    /** One scheduler step in progress; {@code chunks[i]} is member i's prompt tokens computed in a prefill. */
    private record Step(boolean prefill, List<Sequence> members, int[] chunks, long endNanos) {
    }

    /** A request inside the engine. */
    private static final class Sequence {
        final long id;
        final long arrivalNanos;
        /** Prompt then output tokens. */
        final int[] tokens;
        final int prompt;
        final int maxNew;
        KvCache.Node lock;
        int lockedLength;
        int prefilled;
        int cached;
        int generated;
        int reserved;
        boolean aborted;
        /** Its prompt's KV came from a prefill engine: it is decoded only, and never cached here. */
        boolean transferred;

        Sequence(long id, GenerationRequest request, long arrivalNanos, long salt) {
            this.id = id;
            this.arrivalNanos = arrivalNanos;
            this.prompt = request.promptTokens().length;
            this.maxNew = request.maxNewTokens();
            this.tokens = Arrays.copyOf(request.promptTokens(), prompt + maxNew);
            long seed = PseudoWords.seedOf(request.promptTokens(), salt);
            for (int i = 0; i < maxNew; i++) {
                tokens[prompt + i] = PseudoWords.token(seed, i, maxNew);
            }
        }

        Progress progress(long atNanos, boolean finished) {
            return new Progress(id, arrivalNanos, atNanos, prompt, cached, generated, finished);
        }
    }
}
