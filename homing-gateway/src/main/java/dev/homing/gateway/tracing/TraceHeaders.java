package dev.homing.gateway.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import io.vertx.core.MultiMap;

/** W3C trace context ({@code traceparent}, {@code tracestate}) read from and written into Vert.x header maps. */
final class TraceHeaders {

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private static final TextMapGetter<MultiMap> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(MultiMap headers) {
            return headers.names();
        }

        @Override
        public String get(MultiMap headers, String name) {
            return headers == null ? null : headers.get(name);
        }
    };

    private static final TextMapSetter<MultiMap> SETTER = MultiMap::set;

    private TraceHeaders() {
    }

    /** The caller's trace context, or the root context when the headers carry none (or a malformed one). */
    static Context extract(MultiMap headers) {
        return W3C.extract(Context.root(), headers, GETTER);
    }

    /** Sets {@code span}'s context in {@code headers}, replacing whatever trace context they held. */
    static void inject(Span span, MultiMap headers) {
        for (String field : W3C.fields()) {
            headers.remove(field);
        }
        W3C.inject(Context.root().with(span), headers, SETTER);
    }
}
