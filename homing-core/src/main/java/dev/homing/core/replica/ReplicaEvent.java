package dev.homing.core.replica;

import java.util.List;
import java.util.Map;

/**
 * What one gateway replica tells the others: a model's tree grew or was trimmed, what it holds (for a replica that
 * starts late), or how many requests it has in flight on each worker. No event carries prompt text: prefixes are
 * named by {@link BlockChain} hashes, workers by their ids (their URLs, the trees' tenant names).
 */
public sealed interface ReplicaEvent {

    /**
     * A decision sent {@code textChars} characters to {@code worker}, which held the first {@code heldChars} of them:
     * the blocks it did not hold, in order, the first after the block hashed {@code parent} ({@link BlockChain#ROOT}
     * for a text's first block).
     */
    record Placed(String model, String worker, long parent, long[] blocks, int textChars, int heldChars)
            implements ReplicaEvent {

        /** The prompt characters the worker computes: what its recent work grows by. */
        public int uncachedChars() {
            return Math.max(0, textChars - heldChars);
        }
    }

    /**
     * The engine behind {@code worker} held only the prefix up to the block hashed {@code anchor} (whole blocks) of a
     * text whose following blocks are {@code keptPath}: it recomputed that text, and every other branch it was
     * believed to hold below the anchor is gone.
     */
    record Trimmed(String model, String worker, long anchor, int anchorBlocks, long[] keptPath)
            implements ReplicaEvent {
    }

    /** A snapshot's block: {@code workers} hold the prefix up to the block {@code hash}, whose predecessor is {@code parent}. */
    record Held(String model, long parent, long hash, List<String> workers) implements ReplicaEvent {
    }

    /** The replica's requests in flight by worker id, all of them (a worker left out has none). */
    record Loads(Map<String, Integer> inFlight) implements ReplicaEvent {
    }
}
