package dev.homing.bench.jmh;

import java.util.SplittableRandom;

/**
 * Deterministic prompts shaped like chat traffic: each starts with one of a few shared system prompts (a quarter of
 * its length) and goes on with text of its own, so a tree built from them has both shared and private branches.
 */
final class PromptCorpus {

    /** Shared system prompts; several conversations start with each, as in real deployments. */
    static final int SYSTEM_PROMPTS = 8;

    private PromptCorpus() {
    }

    static String[] prompts(int count, int chars, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        String[] systems = new String[SYSTEM_PROMPTS];
        for (int i = 0; i < systems.length; i++) {
            systems[i] = words(random, chars / 4);
        }
        String[] prompts = new String[count];
        for (int i = 0; i < count; i++) {
            String system = systems[i % SYSTEM_PROMPTS];
            prompts[i] = system + words(random, chars - system.length());
        }
        return prompts;
    }

    /** Lower-case pseudo-words of 2 to 8 letters separated by spaces, exactly {@code chars} long. */
    static String words(SplittableRandom random, int chars) {
        StringBuilder text = new StringBuilder(chars);
        while (text.length() < chars) {
            int length = 2 + random.nextInt(7);
            for (int i = 0; i < length && text.length() < chars; i++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            if (text.length() < chars) {
                text.append(' ');
            }
        }
        return text.toString();
    }
}
