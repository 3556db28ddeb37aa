package dev.homing.sim.model;

/**
 * One request's progress at the end of a scheduler step: it has now emitted {@code completionTokens} tokens in all.
 * The first progress of a request is its first token (time to first token is {@code atNanos - arrivalNanos}); the
 * last has {@code finished} set. A request asked for zero new tokens has one progress, finished, with zero tokens.
 *
 * @param cachedTokens prompt tokens found in the KV cache when the request's prefill started
 */
public record Progress(
    long requestId,
    long arrivalNanos,
    long atNanos,
    int promptTokens,
    int cachedTokens,
    int completionTokens,
    boolean finished) {

    public boolean isFirstToken() {
        return completionTokens == 1;
    }
}
