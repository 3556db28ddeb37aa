package dev.homing.gateway.tracing;

import static dev.homing.gateway.tracing.TraceAttributes.CACHED_TOKENS;
import static dev.homing.gateway.tracing.TraceAttributes.ERROR_TYPE;
import static dev.homing.gateway.tracing.TraceAttributes.HTTP_METHOD;
import static dev.homing.gateway.tracing.TraceAttributes.HTTP_STATUS;
import static dev.homing.gateway.tracing.TraceAttributes.OUTCOME;
import static dev.homing.gateway.tracing.TraceAttributes.PROMPT_TOKENS;
import static dev.homing.gateway.tracing.TraceAttributes.RESEND_COUNT;
import static dev.homing.gateway.tracing.TraceAttributes.SERVER_ADDRESS;
import static dev.homing.gateway.tracing.TraceAttributes.SERVER_PORT;
import static dev.homing.gateway.tracing.TraceAttributes.URL_FULL;
import static dev.homing.gateway.tracing.TraceAttributes.WORKER;

import dev.homing.gateway.resilience.UpstreamOutcome;
import dev.homing.gateway.workers.UpstreamTarget;
import dev.homing.gateway.workers.Worker;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.vertx.core.MultiMap;

import java.util.Locale;

/**
 * The client span of one attempt at a worker, a child of its request's span: from the attempt's first send to the
 * end of its leg. Its context is what the engine gets as {@code traceparent}. {@link #OFF}, when tracing is off, does
 * nothing.
 *
 * <p>Invariant: the span ends once, at {@link #end}, which the leg calls as it ends (itself exactly once). Not
 * thread-safe: confined to its leg's event loop.
 */
public final class UpstreamSpan {

    /** Tracing is off, or the attempt has not started: every method returns at once. */
    public static final UpstreamSpan OFF = new UpstreamSpan(null);

    private static final String METHOD = "POST";
    private static final String DROPPED = "dropped";

    /** Null when off. */
    private final Span span;

    private UpstreamSpan(Span span) {
        this.span = span;
    }

    static UpstreamSpan start(Tracer tracer, Span parent, Worker worker, String path, int resendCount) {
        UpstreamTarget target = worker.target();
        SpanBuilder attempt = tracer.spanBuilder(METHOD + " " + path).setSpanKind(SpanKind.CLIENT)
                .setParent(Context.root().with(parent))
                .setAttribute(HTTP_METHOD, METHOD).setAttribute(SERVER_ADDRESS, target.host())
                .setAttribute(SERVER_PORT, (long) target.port()).setAttribute(URL_FULL, worker.url() + path)
                .setAttribute(WORKER, worker.url());
        if (resendCount > 0) {
            attempt.setAttribute(RESEND_COUNT, (long) resendCount);
        }
        return new UpstreamSpan(attempt.startSpan());
    }

    /** Writes this attempt's trace context into the worker's request headers, over any the client sent. */
    public void inject(MultiMap headers) {
        if (span != null) {
            TraceHeaders.inject(span, headers);
        }
    }

    /** The worker answered with {@code status} (its head). */
    public void answered(int status) {
        if (span != null) {
            span.setAttribute(HTTP_STATUS, status);
        }
    }

    /** The engine reported {@code promptTokens}, {@code cachedTokens} of them found in its cache. */
    public void usage(long promptTokens, long cachedTokens) {
        if (span != null) {
            span.setAttribute(PROMPT_TOKENS, promptTokens);
            span.setAttribute(CACHED_TOKENS, cachedTokens);
        }
    }

    /**
     * The attempt is over: {@code outcome} as the circuit breaker recorded it, or null when it was dropped without
     * a word on the worker (the client left, or the gateway had no socket for it).
     */
    public void end(UpstreamOutcome outcome) {
        if (span == null) {
            return;
        }
        String label = outcome == null ? DROPPED : outcome.name().toLowerCase(Locale.ROOT);
        span.setAttribute(OUTCOME, label);
        // As OpenTelemetry's HTTP conventions have it for a client: any answer but a success is this span's error.
        if (outcome != null && outcome != UpstreamOutcome.SUCCESS) {
            span.setAttribute(ERROR_TYPE, label);
            span.setStatus(StatusCode.ERROR, label);
        }
        span.end();
    }
}
