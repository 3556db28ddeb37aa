package dev.homing.sim.model;

import java.util.Objects;

/**
 * What the engine is asked to do: continue {@code promptTokens} by exactly {@code maxNewTokens} tokens (the
 * simulated model never stops early, as with {@code ignore_eos}).
 */
public record GenerationRequest(int[] promptTokens, int maxNewTokens) {
    public GenerationRequest {
        Objects.requireNonNull(promptTokens, "promptTokens");
    }
}
