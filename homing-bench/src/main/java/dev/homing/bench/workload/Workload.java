package dev.homing.bench.workload;

import java.util.stream.Stream;

/**
 * A bounded, deterministic sequence of conversations in order of start time.
 *
 * <p>{@link #conversations()} builds each conversation when the stream reaches it, so a trace of thousands of long
 * prompts never sits in memory at once. Each call starts from the beginning and yields the same conversations.
 * Close the stream (try-with-resources) to release a trace file when stopping early. A live driver sends each
 * conversation's turns itself; an offline consumer may flatten them with {@link ScheduledRequests}.
 */
public interface Workload {

    /** A short name for reports, e.g. {@code mooncake-conversation}. */
    String name();

    Stream<Conversation> conversations();
}
