/**
 * What keeps one bad worker or one traffic spike from taking the gateway down: per-worker circuit breakers,
 * retries with backoff that avoid the worker that just failed, and admission control (a strict concurrency cap with a
 * FIFO wait queue and an optional rate limit). Every class here is pure: time comes from an injected nano clock,
 * randomness from the caller's generator, and timers stay with the caller (Vert.x), so tests run on fake clocks.
 *
 * <h2>Where each piece sits in a request</h2>
 * <pre>
 *  client ─▶ RouteAccess ─▶ AdmissionQueue.tryAcquire ─▶ read body, sniff ─▶ select worker (skip open circuits,
 *            (security)      Admitted / Queued / 429       skip RetryState.excludedWorkerIds) ─▶ breaker.tryAcquire
 *     ─▶ send ─▶ outcome (UpstreamOutcome) ─▶ breaker.record ─▶ RetryState.failed? ─▶ timer ─▶ select again
 *     ─▶ relay (RetryState.firstByteSent before the head) ─▶ end: the breaker permit's outcome, the placement's
 *        in-flight count and the admission permit handed back
 * </pre>
 *
 * <h2>No worker available</h2>
 * A retry first selects among the workers that have not failed this request; if none is available it may go back to
 * one that failed (after the backoff), but never to one that received the request whole and gave no answer: that one
 * may be running it ({@link dev.homing.gateway.resilience.RetryState}; with no other worker the request ends with
 * that failure at once); if the pool has no available worker at all, the request ends at once with
 * 503 {@code no_available_workers} ({@link dev.homing.gateway.resilience.RetryState#noWorkerAvailable()}) rather than
 * sleeping through the backoff sequence. This is the reference's 0.4 s storm of 503s (its issue #13894) turned into
 * an immediate, honest answer: the client's own retry is the better wait.
 */
package dev.homing.gateway.resilience;
