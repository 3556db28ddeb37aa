package dev.homing.gateway.tracing;

import static dev.homing.gateway.tracing.TraceAttributes.BRANCH;
import static dev.homing.gateway.tracing.TraceAttributes.ERROR_TYPE;
import static dev.homing.gateway.tracing.TraceAttributes.HELD_MS;
import static dev.homing.gateway.tracing.TraceAttributes.HTTP_METHOD;
import static dev.homing.gateway.tracing.TraceAttributes.HTTP_ROUTE;
import static dev.homing.gateway.tracing.TraceAttributes.HTTP_STATUS;
import static dev.homing.gateway.tracing.TraceAttributes.MATCH_RATIO;
import static dev.homing.gateway.tracing.TraceAttributes.MODEL;
import static dev.homing.gateway.tracing.TraceAttributes.POLICY;
import static dev.homing.gateway.tracing.TraceAttributes.REQUEST_ID;
import static dev.homing.gateway.tracing.TraceAttributes.RETRIES;
import static dev.homing.gateway.tracing.TraceAttributes.WORKER;

import dev.homing.core.policy.Decision;
import dev.homing.gateway.workers.Worker;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.vertx.core.http.HttpServerRequest;

/**
 * The server span of one inference request: from the exchange's start to its end, with the routing decision as
 * attributes, and a child client span ({@link UpstreamSpan}) per attempt at a worker. {@link #OFF}, when tracing is
 * off, does nothing and allocates nothing.
 *
 * <p>Invariant: the span ends once, at {@link #end}, which the exchange calls on its way into DONE (itself once).
 * Not thread-safe: confined to its exchange's event loop.
 */
public final class RequestSpan {

    /** Tracing is off: every method returns at once. */
    static final RequestSpan OFF = new RequestSpan(null, null);

    private static final String FIRST_TOKEN = "first_token";

    /** Both null when off. */
    private final Tracer tracer;
    private final Span span;
    /** Attempts started, each with its span. */
    private int attempts;

    private RequestSpan(Tracer tracer, Span span) {
        this.tracer = tracer;
        this.span = span;
    }

    static RequestSpan start(Tracer tracer, HttpServerRequest request, String route, String requestId) {
        String method = request.method().name();
        Span span = tracer.spanBuilder(method + " " + route).setSpanKind(SpanKind.SERVER)
                .setParent(TraceHeaders.extract(request.headers()))
                .setAttribute(HTTP_METHOD, method).setAttribute(HTTP_ROUTE, route).setAttribute(REQUEST_ID, requestId)
                .startSpan();
        return new RequestSpan(tracer, span);
    }

    /** The trace's id when this request is traced and sampled, for the access log; else null. */
    public String traceId() {
        return span != null && span.getSpanContext().isSampled() ? span.getSpanContext().getTraceId() : null;
    }

    /** The request was placed on {@code worker} by {@code policy}'s {@code decision}. */
    public void routed(String model, String policy, Decision decision, String worker) {
        if (span == null) {
            return;
        }
        span.setAttribute(MODEL, model);
        span.setAttribute(POLICY, policy);
        span.setAttribute(BRANCH, decision.branch());
        if (decision.textChars() > 0) {
            span.setAttribute(MATCH_RATIO, decision.matchRatio());
        }
        span.setAttribute(WORKER, worker);
    }

    /** The request waited {@code nanos} for an earlier request's prefill before it was sent. */
    public void held(long nanos) {
        if (span != null) {
            span.setAttribute(HELD_MS, nanos / 1e6);
        }
    }

    /** The worker's first byte reached the gateway. */
    public void firstToken() {
        if (span != null) {
            span.addEvent(FIRST_TOKEN);
        }
    }

    /** The span of an attempt at {@code worker} starting now, a child of this one; {@link UpstreamSpan#OFF} if off. */
    public UpstreamSpan attempt(Worker worker, String path) {
        if (span == null) {
            return UpstreamSpan.OFF;
        }
        span.setAttribute(WORKER, worker.url());
        return UpstreamSpan.start(tracer, span, worker, path, attempts++);
    }

    /** The request is done with {@code status}; {@code errorCode} is null when it succeeded. */
    public void end(int status, String errorCode) {
        if (span == null) {
            return;
        }
        span.setAttribute(HTTP_STATUS, status);
        span.setAttribute(RETRIES, Math.max(0, attempts - 1));
        if (errorCode != null) {
            span.setAttribute(ERROR_TYPE, errorCode);
        }
        // As OpenTelemetry's HTTP conventions have it for a server: a 4xx is the client's, not this span's error.
        if (status >= 500) {
            span.setStatus(StatusCode.ERROR, errorCode == null ? "" : errorCode);
        }
        span.end();
    }
}
