package dev.homing.core.tree;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PrefixTreeConcurrencyTest {

    private static final long CAP = 1_500;
    private static final int ROUTERS = 4;
    private static final int OPS_PER_ROUTER = 4_000;
    private static final long TIME_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    @Test
    void concurrentRoutingEvictionAndRemovalLeaveAConsistentTree() throws Exception {
        PrefixTree tree = new PrefixTree(CAP);
        String[] systemPrompts = new String[6];
        for (int i = 0; i < systemPrompts.length; i++) {
            systemPrompts[i] = "system prompt " + i + ": " + "be helpful \u00e9\u20ac\uD83D\uDE00 ".repeat(10);
        }
        long deadline = System.nanoTime() + TIME_LIMIT_NANOS;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(ROUTERS + 1);
        try {
            List<Future<?>> tasks = new ArrayList<>();
            for (int r = 0; r < ROUTERS; r++) {
                long seed = r;
                tasks.add(pool.submit(() -> {
                    start.await();
                    SplittableRandom random = new SplittableRandom(seed);
                    for (int i = 0; i < OPS_PER_ROUTER && System.nanoTime() < deadline; i++) {
                        String text = systemPrompts[random.nextInt(systemPrompts.length)] + "user " + random.nextInt(300);
                        String worker = "w" + random.nextInt(16);
                        switch (random.nextInt(3)) {
                            case 0 -> tree.insert(text, worker);
                            case 1 -> {
                                PrefixMatch match = tree.match(text);
                                assertThat(match.matchedChars()).isBetween(0, text.length());
                            }
                            default -> tree.matchAndInsert(text, match -> {
                                List<String> deepest = match.tenantsAtDeepest();
                                return deepest.isEmpty() ? worker : deepest.get(0);
                            }, t -> t);
                        }
                    }
                    return null;
                }));
            }
            tasks.add(pool.submit(() -> {
                start.await();
                SplittableRandom random = new SplittableRandom(99);
                for (int i = 0; i < 200 && System.nanoTime() < deadline; i++) {
                    if (random.nextInt(4) == 0) {
                        tree.removeTenant("w" + random.nextInt(16));
                    } else {
                        tree.evict();
                        Thread.yield();
                    }
                }
                return null;
            }));
            start.countDown();
            for (Future<?> task : tasks) {
                task.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        tree.checkInvariants();
        assertThat(tree.stats().evictedChars()).as("the run exercised eviction").isPositive();
        assertThat(tree.stats().storedChars()).isLessThanOrEqualTo(CAP + (long) Math.ceil(CAP * PrefixTree.BURST_MARGIN));
        tree.evict();
        tree.checkInvariants();
        assertThat(tree.stats().storedChars()).isLessThanOrEqualTo(CAP);
    }
}
