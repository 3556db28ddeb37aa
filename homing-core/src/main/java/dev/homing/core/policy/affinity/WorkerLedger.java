package dev.homing.core.policy.affinity;

import dev.homing.core.policy.Decision;
import dev.homing.core.policy.PendingPrefill;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What {@link LoadAwareAffinityPolicy} knows of one worker beyond the snapshot it is handed: the prefill it has sent
 * there and not yet seen start answering, a window of the prompt characters it routed there recently, the engine's
 * cache size, and how well the tree predicted the engine's cache. The recent work is the uncached prompt characters
 * routed there, decayed at each decision: what the worker has had to compute lately.
 *
 * <p>Thread-safety: the pending prefill, the capacity and the counters are atomic (feedback arrives on any thread).
 * The recent work is written and read only inside the policy's decision, which runs under its tree's write
 * lock, so it needs no lock of its own.
 */
final class WorkerLedger {

    private final String workerId;
    private final AtomicLong pendingPrefillChars = new AtomicLong();
    private volatile long capacityTokens = -1;
    /** The share of the engine's cache one prompt sent here fills, by its reports; 0 until both are known. */
    private volatile double promptShare;
    private final LongAdder reports = new LongAdder();
    private final LongAdder predictedChars = new LongAdder();
    private final LongAdder realisedChars = new LongAdder();
    private final LongAdder reportedTextChars = new LongAdder();
    private final LongAdder reportedPromptTokens = new LongAdder();
    private final LongAdder trims = new LongAdder();
    private final LongAdder forgottenChars = new LongAdder();

    private volatile boolean retired;

    // Guarded by the policy's tree lock: recent work times the policy's work scale.
    private double scaledWork;
    // Guarded by the policy's tree lock: the prompt characters routed here lately, cached or not, in the same units.
    private double scaledPromptChars;
    // Guarded by the policy's tree lock: requests placed here with a new prefix to compute, oldest first.
    private final ArrayDeque<Prefilling> prefilling = new ArrayDeque<>();

    /** At most this many prefills are remembered: a request whose first token never came must not grow the list. */
    static final int PREFILLING_LIMIT = 32;
    private static final int QUICK_LOOK = 32;

    /** A request placed here that computes its text beyond {@code heldChars}, until its prefill is done. */
    private record Prefilling(String text, int heldChars, PendingPrefill prefill) {
    }

    WorkerLedger(String workerId) {
        this.workerId = workerId;
    }

    /** Uncached prompt characters routed here whose first token has not come back yet. */
    long pendingPrefillChars() {
        return Math.max(0, pendingPrefillChars.get());
    }

    /** Whether this is the live ledger of worker {@code id} (not one retired when the worker was removed). */
    boolean isFor(String id) {
        return !retired && (workerId == id || workerId.equals(id));
    }

    void retire() {
        retired = true;
    }

    /** Recent work in the policy's scaled units; divided by the scale it is the decayed sum of uncached characters. */
    double scaledWork() {
        return scaledWork;
    }

    /** The policy reset its work scale from {@code scale} to 1. */
    void rescaleWork(double scale) {
        scaledWork /= scale;
        scaledPromptChars /= scale;
    }

    /** Prompt characters routed here lately, cached or not, in the policy's scaled units. */
    double scaledPromptChars() {
        return scaledPromptChars;
    }

    /** A prompt of {@code textChars} was routed here (at work scale {@code scale}). */
    void routed(int textChars, double scale) {
        scaledPromptChars += textChars * scale;
    }

    /** The policy placed a request with {@code uncachedChars} to compute here, at work scale {@code scale}. */
    void placed(int uncachedChars, double scale) {
        worked(uncachedChars, scale);
        pendingPrefillChars.addAndGet(uncachedChars);
    }

    /**
     * Recent work of {@code uncachedChars} here, at work scale {@code scale}: a request another gateway replica placed
     * (its prefill is that replica's to watch, so it is not pending here).
     */
    void worked(int uncachedChars, double scale) {
        scaledWork += uncachedChars * scale;
    }

    /** A request placed here will compute {@code text} beyond the {@code heldChars} this worker already held. */
    void prefilling(String text, int heldChars, PendingPrefill prefill) {
        if (prefilling.size() == PREFILLING_LIMIT) {
            prefilling.pollFirst();
        }
        prefilling.addLast(new Prefilling(text, heldChars, prefill));
    }

    /**
     * The prefill still running here that {@code text}'s match of {@code matchedChars} relies on by more than
     * {@code minChars} (the deepest, when several do), or null. Forgets the prefills that are done.
     */
    PendingPrefill prefillReliedOn(String text, int matchedChars, int minChars) {
        prefilling.removeIf(p -> p.prefill().isDone());
        Prefilling deepest = null;
        for (Prefilling p : prefilling) {
            int relied = p.heldChars() + minChars;
            if (matchedChars > relied && p.text().length() > relied
                    && (deepest == null || p.heldChars() > deepest.heldChars())
                    // Where p's new text starts, most texts differ at once: a short look there spares the full check.
                    && text.regionMatches(p.heldChars(), p.text(), p.heldChars(), Math.min(QUICK_LOOK, minChars + 1))
                    && text.regionMatches(0, p.text(), 0, relied + 1)) {
                deepest = p;
            }
        }
        return deepest == null ? null : deepest.prefill();
    }

    void prefillDone(Decision decision) {
        pendingPrefillChars.addAndGet(-(long) Math.max(0, decision.textChars() - decision.matchedChars()));
    }

    void capacity(long kvTokens) {
        capacityTokens = kvTokens;
        updatePromptShare();
    }

    /** The share of this worker's KV cache one prompt sent here fills: its mean reported prompt over its capacity. */
    double promptShare() {
        return promptShare;
    }

    private void updatePromptShare() {
        long tokens = capacityTokens;
        long count = reports.sum();
        if (tokens > 0 && count > 0) {
            promptShare = (double) reportedPromptTokens.sum() / count / tokens;
        }
    }

    /** The engine's cache in characters of routing text, or {@link Long#MAX_VALUE} when its size is unknown. */
    long capacityChars(double defaultCharsPerToken) {
        long tokens = capacityTokens;
        if (tokens < 0) {
            return Long.MAX_VALUE;
        }
        long prompt = reportedPromptTokens.sum();
        double charsPerToken = prompt == 0 ? defaultCharsPerToken : (double) reportedTextChars.sum() / prompt;
        return (long) (tokens * charsPerToken);
    }

    void reported(int predicted, long realised, int textChars, int promptTokens) {
        reports.increment();
        predictedChars.add(predicted);
        realisedChars.add(realised);
        reportedTextChars.add(textChars);
        reportedPromptTokens.add(promptTokens);
        updatePromptShare();
    }

    void trimmed(long chars) {
        trims.increment();
        forgottenChars.add(chars);
    }

    HitAccuracy accuracy() {
        return new HitAccuracy(workerId, reports.sum(), predictedChars.sum(), realisedChars.sum(), trims.sum(),
                forgottenChars.sum());
    }
}
