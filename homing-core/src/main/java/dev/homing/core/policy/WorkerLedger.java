package dev.homing.core.policy;

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
    private final LongAdder reports = new LongAdder();
    private final LongAdder predictedChars = new LongAdder();
    private final LongAdder realisedChars = new LongAdder();
    private final LongAdder reportedTextChars = new LongAdder();
    private final LongAdder reportedPromptTokens = new LongAdder();
    private final LongAdder trims = new LongAdder();
    private final LongAdder forgottenChars = new LongAdder();

    // Guarded by the policy's tree lock.
    private double recentWork;
    private long recentAt;

    WorkerLedger(String workerId) {
        this.workerId = workerId;
    }

    /** Uncached prompt characters routed here whose first token has not come back yet. */
    long pendingPrefillChars() {
        return Math.max(0, pendingPrefillChars.get());
    }

    /** Uncached characters routed here, each decayed by {@code keep} per decision since; as of decision {@code seq}. */
    double recentWork(long seq, double keep) {
        if (seq != recentAt) {
            recentWork *= Math.pow(keep, seq - recentAt);
            recentAt = seq;
        }
        return recentWork;
    }

    /** Decision {@code seq} placed a request with {@code uncachedChars} to compute here. */
    void placed(long seq, double keep, int uncachedChars) {
        recentWork = recentWork(seq, keep) + uncachedChars;
        pendingPrefillChars.addAndGet(uncachedChars);
    }

    void prefillDone(Decision decision) {
        pendingPrefillChars.addAndGet(-(long) Math.max(0, decision.textChars() - decision.matchedChars()));
    }

    void capacity(long kvTokens) {
        capacityTokens = kvTokens;
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
