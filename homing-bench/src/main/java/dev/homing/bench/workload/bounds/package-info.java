/**
 * Ceilings on the prefix-cache hit rate of any routing policy, computed from the request sequence alone.
 *
 * <p>{@link dev.homing.bench.workload.bounds.InfiniteCacheOracle}: every prefix ever seen is cached everywhere.
 * {@link dev.homing.bench.workload.bounds.PooledCacheBound}: one LRU prefix cache with all workers' memory.
 * Both count in blocks of a {@link dev.homing.bench.workload.bounds.PromptBlocks} chain: a trace's own block ids, or
 * ids hashed from the rendered text, in which case a prefix is counted in whole blocks only (a slight
 * underestimate, at most one block per request). For one pass over a workload:
 *
 * <pre>{@code
 * CacheBounds bounds = CacheBounds.of(
 *         ScheduledRequests.of(workload).map(r -> PromptBlocks.of(r, 16)),
 *         8L * 1_000_000);
 * }</pre>
 */
package dev.homing.bench.workload.bounds;
