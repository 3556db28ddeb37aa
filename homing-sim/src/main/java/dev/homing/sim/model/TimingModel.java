package dev.homing.sim.model;

/**
 * How long one scheduler step takes on the simulated GPU, in nanoseconds of virtual time.
 *
 * <p>The defaults ({@link #H100_8B}) stand for an 8B dense model (Llama-3.1-8B class, bf16) on one H100 SXM:
 * <ul>
 *   <li>Prefill: about 16 GFLOP per token (2 x 8B parameters); at roughly 25-30 % of the 989 TFLOP/s dense bf16
 *       peak once attention and kernel overheads are counted, that is 15,000 tokens/s, in line with the prefill
 *       throughput serving benchmarks report for this size (10-20k tokens/s). A step also pays a fixed 5 ms for
 *       scheduling, sampling and the launch of the forward pass.</li>
 *   <li>Decode: a step reads all 16 GB of weights from HBM (3.35 TB/s, about 5 ms at full bandwidth, 8 ms in
 *       practice), so a batch of one takes about 8 ms; each extra request adds about 0.1 ms of compute and sampling
 *       (batch 64 gives about 14 ms, batch 128 about 21 ms); and each token of context read costs its KV bytes
 *       (32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes = 128 KiB, so about 40 ns at 3.35 TB/s).</li>
 * </ul>
 * The attention cost of a cached prefix during prefill is left out: it is small next to the matrix multiplies for
 * the prompt lengths served here.
 *
 * @param prefillTokensPerSecond uncached prompt tokens computed per second of a prefill step
 * @param prefillStepNanos       fixed cost of a prefill step
 * @param decodeStepNanos        fixed cost of a decode step (reading the weights)
 * @param decodeNanosPerRequest  extra decode cost for each request in the batch
 * @param decodeNanosPerContextToken extra decode cost for each token of context (KV read) in the batch
 */
public record TimingModel(
    double prefillTokensPerSecond,
    long prefillStepNanos,
    long decodeStepNanos,
    long decodeNanosPerRequest,
    long decodeNanosPerContextToken) {

    /** An 8B model on one H100, as described above. */
    public static final TimingModel H100_8B = new TimingModel(15_000, 5_000_000, 8_000_000, 100_000, 40);

    public TimingModel {
        if (prefillTokensPerSecond <= 0 || prefillStepNanos < 0 || decodeStepNanos < 0 || decodeNanosPerRequest < 0
            || decodeNanosPerContextToken < 0) {
            throw new IllegalArgumentException("timing parameters must be positive: " + this);
        }
    }

    /** A prefill step computing {@code uncachedTokens} prompt tokens in all. */
    public long prefillNanos(long uncachedTokens) {
        return prefillStepNanos + (long) (uncachedTokens * 1e9 / prefillTokensPerSecond);
    }

    /** A decode step for {@code batchSize} requests holding {@code contextTokens} tokens of KV in all. */
    public long decodeNanos(int batchSize, long contextTokens) {
        return decodeStepNanos + batchSize * decodeNanosPerRequest + contextTokens * decodeNanosPerContextToken;
    }
}
