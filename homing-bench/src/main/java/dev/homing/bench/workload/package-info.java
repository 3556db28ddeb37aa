/**
 * Deterministic workloads: what the live load tool sends and the offline simulator replays.
 *
 * <p>A {@link dev.homing.bench.workload.Workload} is a lazy stream of
 * {@link dev.homing.bench.workload.Conversation} scripts in order of start time. A one-turn conversation is a plain
 * request (trace rows, the shared-prefix benchmark); a multi-turn one (chat, MT-Bench) is sent turn by turn, each
 * turn {@link dev.homing.bench.workload.Turn#thinkMicros} after the previous answer, with the history built by
 * {@link dev.homing.bench.workload.ChatHistory#messages}. A live driver:
 *
 * <pre>{@code
 * try (Stream<Conversation> conversations = workload.conversations()) {
 *     conversations.forEach(c -> schedule(c.startMicros(), () -> sendTurn(c, 0, List.of())));
 * }
 * // sendTurn posts ChatHistory.messages(c, turn, answers) with max_tokens = c.turns().get(turn).maxOutputTokens();
 * // on the answer, it schedules turn + 1 after c.turns().get(turn + 1).thinkMicros() with the answer appended.
 * }</pre>
 *
 * <p>Consumers that need fixed request times flatten a workload with
 * {@link dev.homing.bench.workload.ScheduledRequests#of}. Sources: {@link dev.homing.bench.workload.MultiTurnChat},
 * {@link dev.homing.bench.workload.GeneratedSharedPrefix}, {@link dev.homing.bench.workload.MooncakeTrace},
 * {@link dev.homing.bench.workload.AzureTrace}, {@link dev.homing.bench.workload.MtBench}. Every random choice comes
 * from a {@link dev.homing.bench.workload.SplitMix64} seeded by the workload's seed, so a seed names a workload.
 *
 * <p>Workload objects are immutable and may be shared between threads; each stream they return is for one thread.
 */
package dev.homing.bench.workload;
