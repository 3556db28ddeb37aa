package dev.homing.bench.simulate;

import dev.homing.bench.workload.Limits;
import dev.homing.bench.workload.MooncakeTrace;
import dev.homing.bench.workload.bounds.InfiniteCacheOracle;
import dev.homing.bench.workload.bounds.PooledCacheBound;
import dev.homing.bench.workload.bounds.PromptBlocks;
import dev.homing.sim.model.EngineConfig;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * A floor under the TTFT any routing policy can reach on a Mooncake trace: every request alone on an idle engine,
 * with the longest cached prefix any earlier request could have left (the infinite-cache oracle). Its TTFT is then
 * its uncached prompt's prefill, chunk by chunk, at the engine model's speed. A real run's TTFT of each request is at
 * least this, so each percentile of a real run is at least the same percentile here: a target below it is out of
 * reach of routing.
 *
 * <p>Run: {@code java -cp homing.jar dev.homing.bench.simulate.IdleEngineTtft TRACE}; the engine is
 * {@link EngineConfig#DEFAULTS} (15,000 prefill tokens a second, chunks of 8,192 tokens, 5 ms a step).
 */
public final class IdleEngineTtft {

    private IdleEngineTtft() {
    }

    /** Each row's floor, in nanoseconds, ascending. */
    static long[] floors(MooncakeTrace trace, EngineConfig engine) {
        return floors(trace, engine, new InfiniteCacheOracle()::accept);
    }

    /** Each row's TTFT alone on an idle engine that finds what {@code cache} says it hits, ascending. */
    static long[] floors(MooncakeTrace trace, EngineConfig engine, ToLongFunction<PromptBlocks> cache) {
        return trace.rows().mapToLong(row -> {
            long hit = cache.applyAsLong(PromptBlocks.of(row));
            // The engine computes at least the prompt's last token, to produce the first output token.
            return prefillNanos(row.inputTokens() - Math.min(hit, row.inputTokens() - 1L), engine);
        }).sorted().toArray();
    }

    /** An idle engine's prefill of {@code tokens} uncached tokens: full chunks, then the rest. */
    static long prefillNanos(long tokens, EngineConfig engine) {
        int chunk = engine.chunkedPrefillSize();
        long nanos = (tokens / chunk) * engine.timing().prefillNanos(chunk);
        long rest = tokens % chunk;
        return rest == 0 ? nanos : nanos + engine.timing().prefillNanos(rest);
    }

    /**
     * {@code IdleEngineTtft TRACE} gives the floor; {@code IdleEngineTtft TRACE TOKENS} the same idle engine with
     * one LRU cache of TOKENS (the pooled-memory bound's cache: W workers' KV in one), no longer a strict floor for
     * each request (W separate caches may keep a prefix the pooled LRU dropped) but what the tail costs when a
     * fleet's memory, not its queues, decides it.
     */
    public static void main(String[] args) {
        if (args.length != 1 && args.length != 2) {
            System.err.println("usage: IdleEngineTtft MOONCAKE_TRACE.jsonl [POOLED_KV_TOKENS]");
            System.exit(2);
        }
        MooncakeTrace trace = new MooncakeTrace(Path.of(args[0]),
                new MooncakeTrace.Options(1.0, false, 0, Limits.NONE));
        boolean pooled = args.length == 2;
        long pooledTokens = pooled ? Long.parseLong(args[1]) : 0;
        long[] floors = pooled
                ? floors(trace, EngineConfig.DEFAULTS, new PooledCacheBound(pooledTokens)::accept)
                : floors(trace, EngineConfig.DEFAULTS);
        String cache = pooled ? String.format(Locale.ROOT, "one LRU cache of %,d tokens", pooledTokens)
                : "the infinite cache";
        System.out.printf(Locale.ROOT, "%,d requests on an idle engine with %s: TTFT p50 %.1f ms, "
                        + "p90 %.1f ms, p99 %.1f ms, max %.1f ms%n", floors.length, cache,
                SimulationResult.nearestRankMillis(floors, 50), SimulationResult.nearestRankMillis(floors, 90),
                SimulationResult.nearestRankMillis(floors, 99), SimulationResult.nearestRankMillis(floors, 100));
    }
}
