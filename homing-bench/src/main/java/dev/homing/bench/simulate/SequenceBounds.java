package dev.homing.bench.simulate;

import dev.homing.bench.workload.BlockText;
import dev.homing.bench.workload.Turn;
import dev.homing.bench.workload.bounds.CacheBounds;
import dev.homing.bench.workload.bounds.HitRate;
import dev.homing.bench.workload.bounds.InfiniteCacheOracle;
import dev.homing.bench.workload.bounds.PooledCacheBound;
import dev.homing.bench.workload.bounds.PromptBlocks;
import dev.homing.sim.model.KvCache;
import java.util.Arrays;

/**
 * The two bounds of the request sequence one simulation run sends: the infinite-cache oracle (every prefix ever
 * seen is cached everywhere) and the pooled-memory bound (one cache with every worker's KV pool together).
 *
 * <p>Two granularities, chosen per request:
 * <ul>
 *   <li>A trace request with block ids (Mooncake) is counted in the trace's 512-token blocks by the workload
 *       package's {@link InfiniteCacheOracle} and {@link PooledCacheBound}: the figures other studies of these
 *       traces quote, and cheap even for the hour-long trace.</li>
 *   <li>Any other request is counted to the token on the engine's own {@link KvCache}: one of unlimited size for the
 *       oracle, one of the pooled size (same LRU eviction as an engine) for the pooled bound. Both follow the
 *       engine's rules: a hit is at most the prompt less one token, in whole pages; a prompt enters at its arrival,
 *       and an answer enters when it finishes if its conversation goes on, since the next turn extends it. Every
 *       engine's cache is a subset of the oracle's, so no policy can beat it.</li>
 * </ul>
 * The token bounds keep no block counts ({@link HitRate#blockRate()} is 0 for them). Not thread-safe.
 */
final class SequenceBounds {

    private final long pooledTokens;
    private final InfiniteCacheOracle blockOracle = new InfiniteCacheOracle();
    private final PooledCacheBound blockPooled;
    private final KvCache tokenOracle;
    private final KvCache tokenPooled;
    private HitRate tokenOracleRate = HitRate.NONE;
    private HitRate tokenPooledRate = HitRate.NONE;

    SequenceBounds(long pooledTokens, int pageSize) {
        this.pooledTokens = pooledTokens;
        this.blockPooled = new PooledCacheBound(pooledTokens);
        this.tokenOracle = new KvCache(Integer.MAX_VALUE, pageSize);
        this.tokenPooled = new KvCache((int) Math.min(Integer.MAX_VALUE, pooledTokens), pageSize);
    }

    /** A request arrives: count its hits, then cache its prompt. */
    void arrived(Turn turn, int[] promptTokens) {
        int block = BlockText.BLOCK_TOKENS;
        if (!turn.blockIds().isEmpty() && turn.blockIds().size() == (promptTokens.length + block - 1) / block) {
            PromptBlocks blocks = new PromptBlocks(turn.blockIds(), promptTokens.length, block);
            blockOracle.accept(blocks);
            blockPooled.accept(blocks);
            return;
        }
        tokenOracleRate = tokenOracleRate.plus(tokenRequest(tokenOracle, promptTokens));
        tokenPooledRate = tokenPooledRate.plus(tokenRequest(tokenPooled, promptTokens));
    }

    /** An answer finished and its conversation goes on: cache the prompt and the answer as the engine did. */
    void answered(int[] promptTokens, int[] answerTokens) {
        int[] sequence = Arrays.copyOf(promptTokens, promptTokens.length + answerTokens.length);
        System.arraycopy(answerTokens, 0, sequence, promptTokens.length, answerTokens.length);
        // The last output token was sampled but never computed, so no engine holds its KV.
        int computed = sequence.length - (answerTokens.length > 0 ? 1 : 0);
        hitThenInsert(tokenOracle, sequence, computed);
        hitThenInsert(tokenPooled, sequence, computed);
    }

    CacheBounds result() {
        return new CacheBounds(blockOracle.result().plus(tokenOracleRate), blockPooled.result().plus(tokenPooledRate),
                pooledTokens);
    }

    /** One request of {@code promptTokens} counted to the token on {@code cache}: no blocks. */
    private static HitRate tokenRequest(KvCache cache, int[] promptTokens) {
        return new HitRate(hitThenInsert(cache, promptTokens, promptTokens.length), promptTokens.length, 0, 0, 1);
    }

    /**
     * The cached prefix of {@code tokens[0, length)} as an engine would count it, then {@code tokens[0, length)}
     * into the cache (unless it is larger than the whole cache).
     */
    private static int hitThenInsert(KvCache cache, int[] tokens, int length) {
        KvCache.Match hit = cache.match(tokens, Math.max(0, length - 1));
        cache.lock(hit.node());
        int uncached = cache.pageFloor(length) - hit.length();
        if (uncached > 0 && cache.reserve(uncached)) {
            KvCache.Match inserted = cache.commit(tokens, length, hit.node(), hit.length());
            cache.unlock(inserted.node());
        } else {
            cache.unlock(hit.node());
        }
        return hit.length();
    }
}
