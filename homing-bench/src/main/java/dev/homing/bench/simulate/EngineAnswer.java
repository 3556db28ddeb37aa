package dev.homing.bench.simulate;

import dev.homing.sim.model.PseudoWords;

/**
 * The answer text a simulated engine gives a prompt: its output is a pure function of the prompt tokens, the answer
 * length and the engine's seed, so the simulator knows what a live client would have received and puts exactly
 * that into the next turn of a conversation. Every engine of a simulation has the same seed, so the answer does not
 * depend on the worker chosen. Stateless and thread-safe.
 */
final class EngineAnswer {

    private EngineAnswer() {
    }

    static String text(int[] promptTokens, int tokens, long engineSeed) {
        return PseudoWords.text(PseudoWords.seedOf(promptTokens, engineSeed), 0, tokens, tokens);
    }
}
