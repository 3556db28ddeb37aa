package dev.homing.sim.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The scheduler and timing, driven in virtual time as the offline simulator drives them. */
class EngineTest {
    private static final EngineConfig CONFIG = EngineConfig.DEFAULTS;
    private static final TimingModel TIMING = CONFIG.timing();

    @Test
    void theFirstTokenComesAfterOnePrefillStepOverTheWholePrompt() {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt(1, 2000), 4), 0);

        List<Progress> events = runToIdle(engine);

        assertThat(events.getFirst().isFirstToken()).isTrue();
        assertThat(events.getFirst().atNanos()).isEqualTo(TIMING.prefillNanos(2000));
        assertThat(events.getFirst().cachedTokens()).isZero();
    }

    @Test
    void aRequestEmitsExactlyMaxNewTokensAndThenFinishes() {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt(1, 100), 5), 0);

        List<Progress> events = runToIdle(engine);

        assertThat(events).extracting(Progress::completionTokens).containsExactly(1, 2, 3, 4, 5);
        assertThat(events).extracting(Progress::finished).containsExactly(false, false, false, false, true);
    }

    @Test
    void aRequestForZeroNewTokensFinishesAfterItsPrefill() {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt(1, 100), 0), 0);

        List<Progress> events = runToIdle(engine);

        assertThat(events).singleElement().satisfies(event -> {
            assertThat(event.finished()).isTrue();
            assertThat(event.completionTokens()).isZero();
        });
    }

    @Test
    void timeToFirstTokenGrowsWithTheUncachedPrompt() {
        long shortPrompt = firstTokenNanos(new Engine(CONFIG), prompt(1, 1000));
        long longPrompt = firstTokenNanos(new Engine(CONFIG), prompt(1, 4000));

        assertThat(longPrompt - shortPrompt).isEqualTo(TIMING.prefillNanos(4000) - TIMING.prefillNanos(1000));
    }

    @Test
    void timeToFirstTokenDoesNotGrowWithTheCachedPrompt() {
        int[] system = prompt(1, 4000);
        Engine engine = afterServing(system, 1);

        int[] followUp = concat(system, prompt(50_000, 100));
        long start = engine.nowNanos();
        engine.submit(new GenerationRequest(followUp, 1), start);
        Progress first = runToIdle(engine).getFirst();

        assertThat(first.cachedTokens()).isEqualTo(4000);
        assertThat(first.atNanos() - start).isEqualTo(TIMING.prefillNanos(100));
    }

    @Test
    void theNextTurnFindsTheAnswerOfThePreviousTurnInTheCache() {
        int[] turn1 = prompt(1, 500);
        Engine engine = afterServing(turn1, 20);
        long seed = PseudoWords.seedOf(turn1, CONFIG.seed());
        int[] answer = Tokenizer.encode(PseudoWords.text(seed, 0, 20, 20));

        int[] turn2 = concat(concat(turn1, answer), prompt(90_000, 30));
        engine.submit(new GenerationRequest(turn2, 1), engine.nowNanos());

        assertThat(runToIdle(engine).getFirst().cachedTokens()).isEqualTo(500 + 19);
    }

    @Test
    void twoRequestsPrefilledInTheSameStepDoNotHitEachOther() {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt(900_000, 10), 50), 0);
        int[] shared = prompt(1, 1000);
        long a = engine.submit(new GenerationRequest(shared, 1), 1);
        long b = engine.submit(new GenerationRequest(shared, 1), 1);

        List<Progress> events = runToIdle(engine);

        assertThat(firstOf(events, a).cachedTokens()).isZero();
        assertThat(firstOf(events, b).cachedTokens()).isZero();
        assertThat(firstOf(events, b).atNanos()).isEqualTo(firstOf(events, a).atNanos());
    }

    @Test
    void aRequestArrivingDuringAChunkedPrefillHitsOnlyTheChunksAlreadyComputed() {
        Engine engine = new Engine(CONFIG);
        int[] shared = prompt(1, 20_000);
        long a = engine.submit(new GenerationRequest(shared, 1), 0);
        long b = engine.submit(new GenerationRequest(shared, 1), 1);

        List<Progress> events = runToIdle(engine);

        // A's prompt goes in chunks of 8192; B is admitted with A's last chunk, after two chunks are cached.
        assertThat(firstOf(events, a).cachedTokens()).isZero();
        assertThat(firstOf(events, b).cachedTokens()).isEqualTo(2 * CONFIG.chunkedPrefillSize());
    }

    @Test
    void requestsBeyondTheRunningLimitWaitInTheQueue() {
        Engine engine = new Engine(CONFIG.withMaxRunningRequests(2));
        for (int i = 0; i < 3; i++) {
            engine.submit(new GenerationRequest(prompt(1000 * (i + 1), 100), 100), 0);
        }

        engine.advanceTo(TIMING.prefillNanos(100) * 3);

        EngineStats stats = engine.stats();
        assertThat(stats.runningRequests()).isEqualTo(2);
        assertThat(stats.waitingRequests()).isEqualTo(1);
    }

    @Test
    void aRequestWaitsWhileTheKvPoolIsFullAndRunsWhenItFrees() {
        Engine engine = new Engine(CONFIG.withKvTokens(1000));
        long a = engine.submit(new GenerationRequest(prompt(1, 500), 100), 0);
        long b = engine.submit(new GenerationRequest(prompt(10_000, 500), 100), 0);

        List<Progress> events = runToIdle(engine);

        assertThat(firstOf(events, b).atNanos()).isGreaterThan(lastOf(events, a).atNanos());
    }

    @Test
    void decodeStepsSlowDownAsTheBatchGrows() {
        long alone = interTokenNanos(1);
        long crowded = interTokenNanos(32);

        assertThat(crowded).isGreaterThan(alone);
        assertThat(alone).isBetween(8_000_000L, 12_000_000L);
    }

    @Test
    void abortingARunningRequestFreesItsSlotForAWaitingOne() {
        Engine engine = new Engine(CONFIG.withMaxRunningRequests(1));
        long a = engine.submit(new GenerationRequest(prompt(1, 100), 1000), 0);
        long b = engine.submit(new GenerationRequest(prompt(5000, 100), 10), 0);
        engine.advanceTo(TIMING.prefillNanos(100) + 1);
        assertThat(engine.stats().waitingRequests()).isEqualTo(1);

        assertThat(engine.abort(a, engine.nowNanos())).isTrue();
        List<Progress> events = runToIdle(engine);

        assertThat(events).allMatch(event -> event.requestId() == b);
        assertThat(lastOf(events, b).finished()).isTrue();
        assertThat(engine.stats().usedTokens()).isEqualTo(engine.stats().cachedTokens());
    }

    @Test
    void anAbortedRequestReleasesItsCacheLockAndReservation() {
        Engine engine = new Engine(CONFIG.withKvTokens(2000));
        long a = engine.submit(new GenerationRequest(prompt(1, 1000), 500), 0);
        engine.advanceTo(TIMING.prefillNanos(1000) + 1);

        engine.abort(a, engine.nowNanos());

        KvCache.Occupancy slots = engine.cache().occupancy();
        assertThat(slots.privateTokens()).isZero();
        assertThat(slots.evictableTokens()).isEqualTo(slots.cachedTokens());
    }

    @Test
    void flushingIsRefusedWhileRequestsRunAndEmptiesTheCacheWhenIdle() {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt(1, 100), 3), 0);
        assertThat(engine.flushCache(0)).isFalse();

        runToIdle(engine);

        assertThat(engine.flushCache(engine.nowNanos())).isTrue();
        assertThat(engine.stats().cachedTokens()).isZero();
    }

    @Test
    void aRequestThatCanNeverFitIsRefused() {
        Engine engine = new Engine(CONFIG.withKvTokens(1000));

        assertThatThrownBy(() -> engine.submit(new GenerationRequest(prompt(1, 900), 200), 0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("KV cache");
    }

    private static long interTokenNanos(int batch) {
        Engine engine = new Engine(CONFIG);
        long probe = 0;
        for (int i = 0; i < batch; i++) {
            probe = engine.submit(new GenerationRequest(prompt(1000 * i, 10), 10), 0);
        }
        List<Progress> events = runToIdle(engine);
        long id = probe;
        List<Progress> mine = events.stream().filter(event -> event.requestId() == id).toList();
        return mine.getLast().atNanos() - mine.get(mine.size() - 2).atNanos();
    }

    /** An idle engine that has answered {@code prompt} with {@code newTokens} tokens, at time 0: it caches both. */
    private static Engine afterServing(int[] prompt, int newTokens) {
        Engine engine = new Engine(CONFIG);
        engine.submit(new GenerationRequest(prompt, newTokens), 0);
        runToIdle(engine);
        return engine;
    }

    private static long firstTokenNanos(Engine engine, int[] prompt) {
        engine.submit(new GenerationRequest(prompt, 1), 0);
        Progress first = runToIdle(engine).getFirst();
        return first.atNanos() - first.arrivalNanos();
    }

    /** Advances from event to event, as a discrete-event loop does, until nothing is left to run. */
    static <E> List<E> runToIdle(VirtualTimeModel<E> model) {
        List<E> events = new ArrayList<>();
        for (int steps = 0; model.nextEventNanos() != Long.MAX_VALUE; steps++) {
            if (steps > 1_000_000) {
                throw new AssertionError("the model never went idle");
            }
            events.addAll(model.advanceTo(model.nextEventNanos()));
        }
        return events;
    }

    private static Progress firstOf(List<Progress> events, long id) {
        return events.stream().filter(event -> event.requestId() == id).findFirst().orElseThrow();
    }

    private static Progress lastOf(List<Progress> events, long id) {
        return events.stream().filter(event -> event.requestId() == id).reduce((a, b) -> b).orElseThrow();
    }

    /** {@code length} distinct tokens starting at {@code first}. */
    static int[] prompt(int first, int length) {
        return IntStream.range(first, first + length).toArray();
    }

    static int[] concat(int[] a, int[] b) {
        return IntStream.concat(IntStream.of(a), IntStream.of(b)).toArray();
    }
}
