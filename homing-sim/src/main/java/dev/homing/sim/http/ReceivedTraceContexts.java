package dev.homing.sim.http;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The W3C trace context ({@code traceparent}) of the latest inference requests that carried one, with their
 * {@code x-request-id}, so a test can follow a trace from the gateway into the engine, as a traced engine would
 * continue it. At most {@link #KEPT}, newest last. Thread-safe: written on the engine's event loop, read by tests.
 */
final class ReceivedTraceContexts {

    /** Enough for a test's requests; an engine under a long load keeps the latest only. */
    static final int KEPT = 1_000;

    private final Deque<SimEngineServer.ReceivedTrace> received = new ArrayDeque<>();

    /** Records a request's trace context; a request without one is skipped. */
    synchronized void received(String requestId, String traceparent) {
        if (traceparent == null) {
            return;
        }
        if (received.size() == KEPT) {
            received.removeFirst();
        }
        received.addLast(new SimEngineServer.ReceivedTrace(requestId, traceparent));
    }

    synchronized List<SimEngineServer.ReceivedTrace> snapshot() {
        return List.copyOf(received);
    }
}
