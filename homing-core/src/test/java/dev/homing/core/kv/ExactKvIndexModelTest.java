package dev.homing.core.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.core.kv.KvEvent.AllBlocksCleared;
import dev.homing.core.kv.KvEvent.BlockRemoved;
import dev.homing.core.kv.KvEvent.BlockStored;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The index against a naive model of its definition, on seeded random streams of stores, removals and clears from
 * engines of different block sizes: a worker holds the gateway's block {@code k} of a sequence when one of its
 * engine blocks has the sequence's first {@code (k + 1) * B} tokens as its path and completes them (its last token
 * at or past that length, its first one before it); a match is the leading blocks held without a break.
 */
class ExactKvIndexModelTest {

    private static final int BLOCK = 8;
    private static final String[] WORKERS = {"w0", "w1", "w2"};
    private static final int[] ENGINE_BLOCK_SIZES = {1, 4, 8, 16};

    /** One worker's engine blocks as the model sees them: engine hash to the whole token path up to its end. */
    private static final class ModelWorker {
        final int engineBlockSize;
        final Map<Long, List<Integer>> paths = new HashMap<>();

        ModelWorker(int engineBlockSize) {
            this.engineBlockSize = engineBlockSize;
        }

        boolean holds(List<Integer> sequence, int blocks) {
            int end = blocks * BLOCK;
            for (List<Integer> path : paths.values()) {
                if (path.size() >= end && path.size() - engineBlockSize < end
                        && path.subList(0, end).equals(sequence.subList(0, end))) {
                    return true;
                }
            }
            return false;
        }

        int match(List<Integer> sequence) {
            int blocks = 0;
            while ((blocks + 1) * BLOCK <= sequence.size() && holds(sequence, blocks + 1)) {
                blocks++;
            }
            return blocks;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 2026})
    void theIndexAgreesWithTheNaiveModel(long seed) {
        Random random = new Random(seed);
        ExactKvIndex index = new ExactKvIndex(new TokenBlocks(BLOCK), 1_000_000);
        Map<String, ModelWorker> model = new HashMap<>();
        for (int i = 0; i < WORKERS.length; i++) {
            model.put(WORKERS[i], new ModelWorker(ENGINE_BLOCK_SIZES[random.nextInt(ENGINE_BLOCK_SIZES.length)]));
        }
        // An engine names a block by its content: the same path always gets the same hash.
        Map<List<Integer>, Long> engineHashes = new HashMap<>();

        for (int step = 0; step < 3_000; step++) {
            String name = WORKERS[random.nextInt(WORKERS.length)];
            ModelWorker worker = model.get(name);
            int roll = random.nextInt(100);
            if (roll < 60) {
                List<Long> held = new ArrayList<>(worker.paths.keySet());
                Long parent = held.isEmpty() || random.nextInt(4) == 0 ? null : held.get(random.nextInt(held.size()));
                List<Integer> path = parent == null ? new ArrayList<>() : new ArrayList<>(worker.paths.get(parent));
                int count = 1 + random.nextInt(6);
                long[] hashes = new long[count];
                int[] tokens = new int[count * worker.engineBlockSize];
                for (int b = 0; b < count; b++) {
                    for (int t = 0; t < worker.engineBlockSize; t++) {
                        int token = random.nextInt(3); // a small vocabulary: many shared prefixes
                        tokens[b * worker.engineBlockSize + t] = token;
                        path.add(token);
                    }
                    List<Integer> key = List.copyOf(path);
                    hashes[b] = engineHashes.computeIfAbsent(key, k -> random.nextLong());
                    worker.paths.put(hashes[b], key);
                }
                index.apply(name, new BlockStored(hashes, parent, tokens, worker.engineBlockSize, null, null,
                        Medium.GPU, null, 0));
            } else if (roll < 95) {
                List<Long> held = new ArrayList<>(worker.paths.keySet());
                if (held.isEmpty()) {
                    continue;
                }
                long victim = held.get(random.nextInt(held.size()));
                worker.paths.remove(victim);
                index.apply(name, new BlockRemoved(new long[] {victim}, Medium.GPU, 0));
            } else {
                worker.paths.clear();
                index.apply(name, new AllBlocksCleared());
            }

            List<Integer> query = aQuery(random, model);
            int[] tokens = query.stream().mapToInt(Integer::intValue).toArray();
            ExactMatch match = index.match(tokens, KvNamespace.DEFAULT);
            for (String w : WORKERS) {
                assertThat(match.tokens(w)).as("step %d, worker %s", step, w)
                        .isEqualTo(model.get(w).match(query) * BLOCK);
            }
        }
        long heldInModel = 0;
        for (ModelWorker worker : model.values()) {
            heldInModel += worker.paths.size();
        }
        assertThat(index.stats().engineBlocks()).isEqualTo(heldInModel);
    }

    /** A path some worker holds, cut or extended at random, or a random sequence. */
    private static List<Integer> aQuery(Random random, Map<String, ModelWorker> model) {
        List<List<Integer>> paths = new ArrayList<>();
        for (ModelWorker worker : model.values()) {
            paths.addAll(worker.paths.values());
        }
        List<Integer> query = new ArrayList<>();
        if (!paths.isEmpty() && random.nextInt(5) > 0) {
            List<Integer> path = paths.get(random.nextInt(paths.size()));
            query.addAll(path.subList(0, random.nextInt(path.size() + 1)));
        }
        int extra = random.nextInt(2 * BLOCK);
        for (int i = 0; i < extra; i++) {
            query.add(random.nextInt(3));
        }
        return query;
    }
}
