package dev.homing.core.replica;

import dev.homing.core.policy.RoutingPolicy;
import dev.homing.core.tree.PrefixMatch;
import dev.homing.core.tree.PrefixTree;
import dev.homing.core.tree.TreeSync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One model's policy kept in step with the same model's policies in the other gateway replicas: what its decisions
 * change goes out as events, and the other replicas' events come in here ({@link #apply}), so that a request routed
 * by any replica finds what every replica placed, as if one gateway had placed it all.
 *
 * <ul>
 *   <li><b>Out</b>: each insert of a decision becomes a {@link ReplicaEvent.Placed} (the blocks its worker did not
 *       hold), each trim learnt from an engine's cached tokens a {@link ReplicaEvent.Trimmed}, handed to the
 *       outbound sink on the deciding thread, outside the tree's lock.</li>
 *   <li><b>In</b>: a placement's blocks go to a bounded {@link RemoteBlocks} index and its uncached characters to the
 *       policy's recent work ({@link RoutingPolicy#onRemotePlacement}); a trim drops the index's branches and leaves
 *       a mark for the tree.</li>
 *   <li><b>Before a match</b>: the text's blocks that the index knows a worker holds further than the tree does are
 *       learnt into the tree as text ({@link PrefixTree#learn}), up to the last whole block, and leave the index; so
 *       the policy sees one tree, with remote placements matching at block granularity, and needs no rule of its own.
 *       A mark whose text the request continues trims the tree as the engine's report trimmed the sender's.</li>
 * </ul>
 * A policy without a tree only shares its recent work and (through the driver) its load.
 *
 * <p>Thread-safe: the index and the marks lock themselves; the per-thread cache of the last text hashed lets a
 * decision hash its text once for the match and the publication.
 */
public final class ModelReplica implements TreeSync {

    /** Trims remembered for the trees at most; an older one is dropped (trims are rare). */
    static final int MARK_LIMIT = 1024;

    private final String model;
    private final BlockChain chain;
    private final RoutingPolicy policy;
    private final PrefixTree tree;
    private final RemoteBlocks remote;
    private final Consumer<ReplicaEvent> outbound;
    private final Map<Long, Mark> marks = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Mark> eldest) {
            return size() > MARK_LIMIT;
        }
    };
    private final ThreadLocal<Hashed> lastHashed = new ThreadLocal<>();

    /** A trim to apply to the tree when a request continues its text ({@code blocks} whole blocks of it). */
    private record Mark(String worker, int anchorBlocks, int blocks) {
    }

    private record Hashed(String text, long[] hashes) {
    }

    private ModelReplica(String model, RoutingPolicy policy, int blockChars, Consumer<ReplicaEvent> outbound) {
        this.model = model;
        this.chain = new BlockChain(blockChars);
        this.policy = policy;
        this.tree = policy.routingTree().orElse(null);
        this.remote = new RemoteBlocks(tree == null ? 1 : (int) Math.min(Integer.MAX_VALUE,
                Math.max(1, tree.maxChars() / blockChars)));
        this.outbound = outbound;
    }

    /**
     * Keeps {@code policy} (model {@code model}'s) in step with other replicas from now on: its tree's decisions go
     * to {@code outbound}, named in blocks of {@code blockChars} characters.
     */
    public static ModelReplica attach(String model, RoutingPolicy policy, int blockChars,
                                      Consumer<ReplicaEvent> outbound) {
        ModelReplica replica = new ModelReplica(model, policy, blockChars, outbound);
        if (replica.tree != null) {
            replica.tree.sync(replica);
        }
        return replica;
    }

    public String model() {
        return model;
    }

    /** Entries of other replicas' placements not learnt by the tree yet. */
    public int remoteEntries() {
        return remote.size();
    }

    // ---- in ----

    /** An event of another replica about this model. */
    public void apply(ReplicaEvent event) {
        switch (event) {
            case ReplicaEvent.Placed placed -> {
                if (tree != null && placed.blocks().length > 0) {
                    remote.add(placed.worker(), placed.parent(), placed.blocks());
                }
                policy.onRemotePlacement(placed.worker(), placed.uncachedChars());
            }
            case ReplicaEvent.Trimmed trimmed -> {
                if (tree != null) {
                    remote.trim(trimmed.worker(), trimmed.anchor(), trimmed.keptPath());
                    long[] path = trimmed.keptPath();
                    long last = path.length == 0 ? trimmed.anchor() : path[path.length - 1];
                    synchronized (marks) {
                        marks.put(last, new Mark(trimmed.worker(), trimmed.anchorBlocks(),
                                trimmed.anchorBlocks() + path.length));
                    }
                }
            }
            case ReplicaEvent.Held held -> {
                if (tree != null) {
                    remote.add(held.workers(), held.parent(), held.hash());
                }
            }
            case ReplicaEvent.Loads loads -> {
                // The driver's: loads are per worker, not per model.
            }
        }
    }

    /** A worker left the model here: what other replicas said of it goes too. */
    public void workerRemoved(String worker) {
        remote.removeWorker(worker);
    }

    /**
     * What this replica knows of the model, as events for a replica that starts late: every whole block of the tree
     * with the workers holding it, then what other replicas placed that the tree has not learnt yet.
     */
    public List<ReplicaEvent.Held> snapshot() {
        List<ReplicaEvent.Held> held = new ArrayList<>();
        if (tree == null) {
            return held;
        }
        int blockChars = chain.blockChars();
        long[][] pathHashes = {new long[64]};
        tree.visitBlocks(blockChars, (path, block, workers) -> {
            if (block >= pathHashes[0].length) {
                pathHashes[0] = Arrays.copyOf(pathHashes[0], block * 2);
            }
            long parent = block == 0 ? BlockChain.ROOT : pathHashes[0][block - 1];
            long hash = BlockChain.next(parent, path, block * blockChars, blockChars);
            pathHashes[0][block] = hash;
            held.add(new ReplicaEvent.Held(model, parent, hash, List.copyOf(workers)));
        });
        held.addAll(remote.snapshot(model));
        return held;
    }

    // ---- out, and the tree's side ----

    @Override
    public void beforeMatch(PrefixTree tree, String text) {
        boolean anyMark;
        synchronized (marks) {
            anyMark = !marks.isEmpty();
        }
        if (remote.isEmpty() && !anyMark) {
            return;
        }
        long[] hashes = hashed(text);
        if (hashes.length == 0) {
            return;
        }
        int blockChars = chain.blockChars();
        if (!remote.isEmpty()) {
            PrefixMatch match = tree.match(text);
            Map<String, Integer> claimed = remote.claim(hashes, worker -> match.matchedCharsFor(worker) / blockChars,
                    match.matchedChars() / blockChars);
            claimed.forEach((worker, blocks) -> tree.learn(text, blocks * blockChars, worker));
        }
        if (anyMark) {
            for (Mark mark : marksContinuedBy(hashes)) {
                tree.forgetBranches(text, mark.anchorBlocks() * blockChars, mark.worker());
            }
        }
    }

    private List<Mark> marksContinuedBy(long[] hashes) {
        List<Mark> found = new ArrayList<>(1);
        synchronized (marks) {
            for (int k = 0; k < hashes.length; k++) {
                Mark mark = marks.get(hashes[k]);
                if (mark != null && mark.blocks() == k + 1) {
                    marks.remove(hashes[k]);
                    found.add(mark);
                }
            }
        }
        return found;
    }

    @Override
    public void inserted(String text, int heldChars, String tenant) {
        long[] hashes = hashed(text);
        int from = Math.min(chain.blocksIn(heldChars), hashes.length);
        outbound.accept(new ReplicaEvent.Placed(model, tenant, from == 0 ? BlockChain.ROOT : hashes[from - 1],
                Arrays.copyOfRange(hashes, from, hashes.length), text.length(), heldChars));
    }

    @Override
    public void trimmed(String text, int keptChars, String tenant) {
        long[] hashes = hashed(text);
        int anchorBlocks = Math.min(chain.blocksIn(keptChars), hashes.length);
        outbound.accept(new ReplicaEvent.Trimmed(model, tenant,
                anchorBlocks == 0 ? BlockChain.ROOT : hashes[anchorBlocks - 1], anchorBlocks,
                Arrays.copyOfRange(hashes, anchorBlocks, hashes.length)));
    }

    /** The text's block hashes, computed once for a decision's match and publication on this thread. */
    private long[] hashed(String text) {
        Hashed last = lastHashed.get();
        if (last != null && last.text() == text) {
            return last.hashes();
        }
        long[] hashes = chain.hashes(text);
        lastHashed.set(new Hashed(text, hashes));
        return hashes;
    }
}
