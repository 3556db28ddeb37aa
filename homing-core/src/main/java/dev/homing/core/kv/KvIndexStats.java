package dev.homing.core.kv;

/**
 * What an {@link ExactKvIndex} holds and what it could not take, for metrics.
 *
 * @param workers         workers with a view
 * @param engineBlocks    engine blocks recorded, over every worker: what the cap bounds
 * @param heldBlocks      the gateway's own blocks held, summed over workers
 * @param distinctBlocks  the gateway's own blocks held by at least one worker
 * @param estimatedBytes  the heap the index takes, estimated from the counts above
 * @param refusedBlocks   engine blocks not recorded because the index was full
 * @param orphanStores    stores whose parent block was unknown (stored before the view began, or refused)
 * @param unknownRemovals removals of blocks the view never held (stored before it began: harmless)
 * @param ignoredEvents   stores and removals on a medium other than GPU, or of a group other than the first
 */
public record KvIndexStats(int workers, long engineBlocks, long heldBlocks, long distinctBlocks, long estimatedBytes,
                           long refusedBlocks, long orphanStores, long unknownRemovals, long ignoredEvents) {
}
