package dev.homing.tokenizer;

/**
 * Receives a prompt's ids in order, a run at a time, as they are encoded, and may stop the encoding: a caller that
 * needs only the prompt's leading tokens (how far some engine's cache reaches) pays for no more than those.
 */
@FunctionalInterface
public interface TokenRuns {

    /** Takes the next run of ids (not to be changed: it may be a cached array); returns false to stop there. */
    boolean accept(int[] ids);
}
