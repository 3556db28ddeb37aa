package dev.homing.core.tree;

/**
 * A snapshot of a tree's size, for metrics and for measuring heap per stored character.
 *
 * @param storedChars  UTF-16 units on all edges, each node counted once however many tenants hold it
 * @param nodeCount    nodes, not counting the root
 * @param tenantCount  workers that have inserted text and not been removed
 * @param evictedChars stored characters removed by eviction since the tree was built (removed tenants not counted)
 */
public record TreeStats(long storedChars, int nodeCount, int tenantCount, long evictedChars) {
}
