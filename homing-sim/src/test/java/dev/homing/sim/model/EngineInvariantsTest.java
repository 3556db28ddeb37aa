package dev.homing.sim.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random arrivals, aborts and time steps on a small engine, checking what must hold whatever the schedule: every
 * request not aborted finishes with exactly its tokens, in order, never beyond the running limit or the pool, a hit is
 * never longer than the prompt less one token, and once idle the engine holds nothing but unlocked cache.
 */
class EngineInvariantsTest {
    private static final int ARRIVALS = 400;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void randomTrafficLeavesEveryRequestFinishedOrAbortedAndTheEngineClean(long seed) {
        Random random = new Random(seed);
        EngineConfig config = new EngineConfig(3000, random.nextBoolean() ? 1 : 8, 1 + random.nextInt(8),
            64 + random.nextInt(512), 4000, TimingModel.H100_8B, seed);
        Engine engine = new Engine(config);
        Map<Long, Integer> expected = new HashMap<>();
        Map<Long, Integer> emitted = new HashMap<>();
        Set<Long> finished = new HashSet<>();
        Set<Long> aborted = new HashSet<>();
        int[][] prefixes = {EngineTest.prompt(0, 700), EngineTest.prompt(10_000, 300)};
        long now = 0;
        for (int i = 0; i < ARRIVALS; i++) {
            now += random.nextInt(20_000_000);
            int[] prompt = EngineTest.concat(
                java.util.Arrays.copyOf(prefixes[random.nextInt(2)], random.nextInt(600)),
                EngineTest.prompt(100_000 + 1000 * i, 1 + random.nextInt(200)));
            int maxNew = random.nextInt(60);
            expected.put(engine.submit(new GenerationRequest(prompt, maxNew), now), maxNew);
            if (random.nextInt(10) == 0) {
                long victim = 1 + random.nextInt(i + 1);
                if (engine.abort(victim, now)) {
                    aborted.add(victim);
                }
            }
            record(engine.advanceTo(now), emitted, finished, config);
            EngineStats stats = engine.stats();
            assertThat(stats.runningRequests()).isLessThanOrEqualTo(config.maxRunningRequests());
            assertThat(stats.usedTokens()).isLessThanOrEqualTo(config.kvTokens());
        }
        while (engine.nextEventNanos() != Long.MAX_VALUE) {
            record(engine.advanceTo(engine.nextEventNanos()), emitted, finished, config);
        }

        for (Map.Entry<Long, Integer> request : expected.entrySet()) {
            if (!aborted.contains(request.getKey())) {
                assertThat(finished).contains(request.getKey());
                assertThat(emitted.getOrDefault(request.getKey(), 0)).isEqualTo(request.getValue());
            }
        }
        KvCache.Occupancy slots = engine.cache().occupancy();
        assertThat(slots.privateTokens()).isZero();
        assertThat(slots.evictableTokens()).isEqualTo(slots.cachedTokens());
        assertThat(engine.stats().usedTokens()).isEqualTo(engine.stats().cachedTokens());
    }

    private static void record(List<Progress> events, Map<Long, Integer> emitted, Set<Long> finished,
                               EngineConfig config) {
        for (Progress event : events) {
            int before = emitted.getOrDefault(event.requestId(), 0);
            assertThat(event.completionTokens()).isEqualTo(event.completionTokens() == 0 ? 0 : before + 1);
            assertThat(finished).doesNotContain(event.requestId());
            assertThat(event.cachedTokens()).isLessThan(event.promptTokens());
            assertThat(event.cachedTokens() % config.pageSize()).isZero();
            emitted.put(event.requestId(), event.completionTokens());
            if (event.finished()) {
                finished.add(event.requestId());
            }
        }
    }
}
