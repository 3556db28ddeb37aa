package dev.homing.core.kv;

import java.util.Map;

/**
 * How much of one token sequence each worker holds, by the engines' own account: the leading whole blocks of the
 * gateway's size that a worker's cache holds without a break. A worker absent from the map holds none.
 *
 * @param blockTokens     the tokens in one block
 * @param blocksByWorker  the leading blocks held, by worker id, each at least one
 */
public record ExactMatch(int blockTokens, Map<String, Integer> blocksByWorker) {

    public ExactMatch {
        blocksByWorker = Map.copyOf(blocksByWorker);
    }

    /** The leading tokens of the sequence that {@code worker} holds: a multiple of {@link #blockTokens()}. */
    public int tokens(String worker) {
        return blocksByWorker.getOrDefault(worker, 0) * blockTokens;
    }
}
