package dev.homing.bench.jmh;

import dev.homing.core.tree.PrefixTree;
import dev.homing.core.tree.TreeStats;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.SplittableRandom;

/**
 * Heap bytes per stored character of a prefix tree filled with chat-shaped traffic: conversations that share system
 * prompts and grow turn by turn across 64 workers, until the tree stores {@code targetChars} characters. Shorter
 * turns mean more, smaller nodes, so the per-node overhead weighs more: run it at several turn lengths.
 *
 * <p>Run: {@code java -XX:+UseCompactObjectHeaders -cp benchmarks.jar dev.homing.bench.jmh.TreeFootprint [chars [turnChars]]}.
 * The heap is read after repeated full collections, before and after building the tree; the prompts are generated
 * on the fly and dropped, so only the tree remains reachable.
 */
public final class TreeFootprint {

    private static final int WORKERS = 64;

    private TreeFootprint() {
    }

    public static void main(String[] args) {
        long targetChars = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int turnChars = args.length > 1 ? Integer.parseInt(args[1]) : 2_000;
        long before = usedHeapAfterGc();
        PrefixTree tree = fill(targetChars, turnChars);
        long after = usedHeapAfterGc();
        TreeStats stats = tree.stats();
        double perChar = (double) (after - before) / stats.storedChars();
        System.out.printf("turn %,d chars: stored chars %,d  nodes %,d  heap %,d bytes  %.2f bytes/char  %.0f bytes/node%n",
                turnChars, stats.storedChars(), stats.nodeCount(), after - before, perChar,
                (double) (after - before) / Math.max(1, stats.nodeCount()));
        // Keep the tree reachable until the second reading is taken.
        if (tree.maxChars() < 0) {
            System.out.println(tree);
        }
    }

    static PrefixTree fill(long targetChars, int turnChars) {
        SplittableRandom random = new SplittableRandom(42);
        String[] systems = new String[16];
        for (int i = 0; i < systems.length; i++) {
            systems[i] = PromptCorpus.words(random, 8_000);
        }
        PrefixTree tree = new PrefixTree(Long.MAX_VALUE / 4);
        int conversation = 0;
        while (tree.stats().storedChars() < targetChars) {
            String worker = "http://10.0.0." + (conversation % WORKERS) + ":30000";
            StringBuilder prompt = new StringBuilder(systems[conversation % systems.length]);
            int turns = 1 + random.nextInt(8);
            for (int turn = 0; turn < turns; turn++) {
                prompt.append(PromptCorpus.words(random, turnChars));
                tree.insert(prompt.toString(), worker);
            }
            conversation++;
        }
        return tree;
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
