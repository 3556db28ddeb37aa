package dev.homing.bench.report;

/** What one worker served during a run: requests and prompt tokens routed to it. */
public record WorkerShare(String worker, long requests, long tokens) {
}
