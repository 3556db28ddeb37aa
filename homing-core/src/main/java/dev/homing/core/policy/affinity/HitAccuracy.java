package dev.homing.core.policy.affinity;

/**
 * How well the policy's tree predicted one worker's cache: what it expected the engine to hold against what the
 * engine reported holding, summed over the requests the engine reported on. Counters for metrics; a value.
 *
 * @param workerId       the worker
 * @param reports        requests whose prompt and cached tokens the engine reported
 * @param predictedChars characters of routing text the tree said the worker held when each request was placed
 * @param realisedChars  characters the engine really had cached (its cached share of the prompt, applied to the text)
 * @param trims          reports that showed an eviction and made the tree forget branches
 * @param forgottenChars characters the tree forgot for this worker after those reports
 */
public record HitAccuracy(String workerId, long reports, long predictedChars, long realisedChars, long trims,
        long forgottenChars) {

    /** Realised over predicted characters; 1 when nothing was predicted. */
    public double realisedShare() {
        return predictedChars == 0 ? 1.0 : (double) realisedChars / predictedChars;
    }
}
