package dev.homing.sim.model;

/**
 * The simulated model's log probabilities: deterministic values in (-4, 0], so that an answer's logprobs repeat
 * run to run and a prompt's are the same on every engine that computes it (a prefill engine's are a regular
 * engine's). Stateless and thread-safe.
 */
public final class Logprobs {
    /** The spread of the values: a token's log probability lies in (-SPREAD, 0]. */
    private static final double SPREAD = 4;

    private Logprobs() {
    }

    /**
     * The log probability of prompt token {@code index} given the tokens before it, or NaN for the first token, which
     * nothing predicts.
     */
    public static double ofPromptToken(int[] prompt, int index) {
        if (index == 0) {
            return Double.NaN;
        }
        return value(Mix.splitMix64(((long) prompt[index - 1] << 32) ^ prompt[index] ^ Mix.splitMix64(index)));
    }

    /** The log probability of output token {@code index} of the answer seeded {@code seed}. */
    public static double ofOutputToken(long seed, int index) {
        return value(Mix.splitMix64(Mix.splitMix64(seed) + index));
    }

    private static double value(long bits) {
        return -SPREAD * ((bits >>> 11) * 0x1.0p-53);
    }
}
