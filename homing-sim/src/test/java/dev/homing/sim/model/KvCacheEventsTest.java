package dev.homing.sim.model;

import static dev.homing.sim.model.KvCacheTest.concat;
import static dev.homing.sim.model.KvCacheTest.store;
import static dev.homing.sim.model.KvCacheTest.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.kv.ExactKvIndex;
import dev.homing.core.kv.KvEvent;
import dev.homing.core.kv.KvNamespace;
import dev.homing.core.kv.Medium;
import dev.homing.core.kv.TokenBlocks;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The cache's events, replayed into the gateway's exact index, give the index exactly what the cache holds, in the
 * gateway's whole blocks, after every step of a random workload under eviction pressure.
 */
class KvCacheEventsTest {

    @ParameterizedTest(name = "engine pages of {0}, gateway blocks of {1}")
    @CsvSource({"1, 16", "1, 4", "4, 16", "16, 16"})
    void anIndexFedTheEventsMatchesWhatTheCacheHoldsAfterEveryStep(int pageSize, int blockTokens) {
        KvCache cache = new KvCache(2_000, pageSize);
        ExactKvIndex index = new ExactKvIndex(new TokenBlocks(blockTokens), 1_000_000);
        cache.publishTo(event -> index.apply("engine", event));
        SplittableRandom random = new SplittableRandom(7);
        List<int[]> prompts = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int[] stem = tokens(1000 * random.nextInt(5), 32 + random.nextInt(200));
            prompts.add(concat(stem, tokens(100_000 + 1000 * i, 1 + random.nextInt(300))));
        }
        for (int step = 0; step < 400; step++) {
            int[] prompt = prompts.get(random.nextInt(prompts.size()));
            if (step % 97 == 96) {
                cache.flush();
            } else {
                store(cache, prompt);
            }
            for (int[] probe : prompts) {
                int held = cache.match(probe, probe.length).length();
                assertThat(index.match(probe, KvNamespace.DEFAULT).tokens("engine"))
                    .as("step %d, a prompt of %d tokens", step, probe.length)
                    .isEqualTo(held - held % blockTokens);
            }
        }
        assertThat(cache.evictedTokens()).as("the workload put the cache under pressure").isPositive();
    }

    /** A cache of {@code capacity} one-token pages whose events are added to {@code events}. */
    private static KvCache publishingTo(List<KvEvent> events, int capacity) {
        KvCache cache = new KvCache(capacity, 1);
        cache.publishTo(events::add);
        return cache;
    }

    @Test
    void anIdleFlushClearsEverythingInOneEvent() {
        List<KvEvent> events = new ArrayList<>();
        KvCache cache = publishingTo(events, 1_000);
        store(cache, tokens(0, 100));
        events.clear();

        cache.flush();

        assertThat(events).containsExactly(new KvEvent.AllBlocksCleared());
        assertThat(cache.occupancy().cachedTokens()).isZero();
    }

    @Test
    void aStoreNamesItsParentAndAnEvictionNamesTheSameBlocks() {
        List<KvEvent> events = new ArrayList<>();
        KvCache cache = publishingTo(events, 250);
        store(cache, tokens(0, 100));
        store(cache, concat(tokens(0, 100), tokens(500, 50)));
        KvEvent.BlockStored first = (KvEvent.BlockStored) events.get(0);
        KvEvent.BlockStored second = (KvEvent.BlockStored) events.get(1);

        assertThat(first.parentHash()).isNull();
        assertThat(second.parentHash()).isEqualTo(first.blockHashes()[99]);
        assertThat(second.tokenIds()).containsExactly(tokens(500, 50));

        assertThat(cache.reserve(200)).isTrue();
        assertThat(events.subList(2, events.size()))
            .containsExactly(new KvEvent.BlockRemoved(second.blockHashes(), Medium.GPU, 0),
                new KvEvent.BlockRemoved(first.blockHashes(), Medium.GPU, 0));
    }
}
