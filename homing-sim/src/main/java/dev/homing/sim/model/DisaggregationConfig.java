package dev.homing.sim.model;

import java.util.concurrent.TimeUnit;

/**
 * The settings of the prefill and decode roles, with defaults for the 8B model of {@link EngineConfig#DEFAULTS} on
 * H100 nodes ({@link #DEFAULTS}).
 *
 * @param bootstrapTimeoutNanos how long a room waits for its partner: a prefill request for its decode engine's
 *                              registration, a decode request for its prefill. SGLang's bootstrap and waiting timeouts
 *                              are both 300 s
 * @param linkGigabitsPerSecond the decode engine's KV link: one 400 Gb/s RDMA NIC a GPU, as H100 nodes have
 * @param linkLatencyNanos      the fixed cost of one transfer: the transfer engine's handshake and completion poll,
 *                              a few milliseconds, not the wire's microseconds
 * @param kvBytesPerToken       the KV of one token: 32 layers x 8 KV heads x 128 dimensions x 2 (K and V) x 2 bytes
 *                              = 128 KiB for an 8B Llama in bf16, as in {@link TimingModel}
 */
public record DisaggregationConfig(
    long bootstrapTimeoutNanos,
    double linkGigabitsPerSecond,
    long linkLatencyNanos,
    long kvBytesPerToken) {

    public static final DisaggregationConfig DEFAULTS = new DisaggregationConfig(TimeUnit.SECONDS.toNanos(300), 400,
        TimeUnit.MILLISECONDS.toNanos(2), 128 * 1024);

    public DisaggregationConfig {
        if (bootstrapTimeoutNanos <= 0 || !(linkGigabitsPerSecond > 0) || linkLatencyNanos < 0
            || kvBytesPerToken <= 0) {
            throw new IllegalArgumentException("the timeout, bandwidth and KV size must be positive, the latency not "
                + "negative");
        }
    }

    /** A fresh link of these settings. */
    public TransferLink link() {
        return new TransferLink(linkGigabitsPerSecond, linkLatencyNanos);
    }
}
