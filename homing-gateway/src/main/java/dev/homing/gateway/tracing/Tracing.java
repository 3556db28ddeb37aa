package dev.homing.gateway.tracing;

import dev.homing.config.OtlpEndpoint;
import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.vertx.core.http.HttpServerRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's traces ({@code --enable-trace}): the OpenTelemetry SDK, exporting in batches over OTLP/HTTP to
 * {@code --otlp-traces-endpoint} from a thread of its own, on the JDK's HTTP client (the exporter's other sender,
 * OkHttp, would bring Kotlin and a second HTTP stack beside Netty's; gRPC needs one of those, as the JDK client reads
 * no HTTP/2 trailers). A request that comes with a {@code traceparent} is sampled as its caller decided, one that
 * comes without is always sampled.
 *
 * <p>Off, the default, is {@link #OFF}: {@link #request} hands every exchange the shared {@link RequestSpan#OFF},
 * whose methods return at once, so the request path pays a few calls that do nothing: no allocation, no header
 * lookup, no clock read ({@code TracingOffBenchmark}, in homing-gateway's tests, measures it).
 *
 * <p>Thread-safe. {@link #close} flushes what is queued, for at most {@link #FLUSH_SECONDS}.
 */
public final class Tracing implements AutoCloseable {

    /** No traces. */
    public static final Tracing OFF = new Tracing(null);

    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
    private static final String INSTRUMENTATION = "dev.homing.gateway";
    private static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");
    /** Long enough for a batch to reach a live collector at shutdown; a dead one does not hold the stop longer. */
    private static final long FLUSH_SECONDS = 10;

    /** Null when off. */
    private final SdkTracerProvider provider;
    private final Tracer tracer;

    private Tracing(SdkTracerProvider provider) {
        this.provider = provider;
        this.tracer = provider == null ? null : provider.get(INSTRUMENTATION);
    }

    /** {@link #OFF} unless {@code --enable-trace}; then spans go to {@code --otlp-traces-endpoint}. */
    public static Tracing of(GatewayConfig config) {
        if (!config.get(Settings.ENABLE_TRACE)) {
            return OFF;
        }
        URI url = OtlpEndpoint.url(config.get(Settings.OTLP_TRACES_ENDPOINT));
        if (url.getPort() == OtlpEndpoint.GRPC_PORT) {
            LOG.warn("{} {}: port {} is OTLP/gRPC's; Homing sends OTLP/HTTP, which a collector takes on port 4318",
                    Settings.OTLP_TRACES_ENDPOINT.flag(), url, OtlpEndpoint.GRPC_PORT);
        }
        // Reusable data: the exporter encodes each batch into buffers it keeps, rather than new ones per batch.
        OtlpHttpSpanExporter exporter = OtlpHttpSpanExporter.builder().setEndpoint(url.toString())
                .setMemoryMode(MemoryMode.REUSABLE_DATA).build();
        LOG.info("traces: OTLP/HTTP to {}", url);
        return exportingTo(BatchSpanProcessor.builder(exporter).build());
    }

    /** Traces handed to {@code processor} as each span ends (a test's in-memory exporter, for one). */
    public static Tracing exportingTo(SpanProcessor processor) {
        return new Tracing(SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(SERVICE_NAME, "homing"))))
                .setSampler(Sampler.parentBased(Sampler.alwaysOn()))
                .addSpanProcessor(processor)
                .build());
    }

    public boolean enabled() {
        return provider != null;
    }

    /**
     * The span of one inference request on {@code route}, continuing the trace of its {@code traceparent}, if any;
     * {@link RequestSpan#OFF} when off. Call on the request's event loop.
     */
    public RequestSpan request(HttpServerRequest request, String route, String requestId) {
        return tracer == null ? RequestSpan.OFF : RequestSpan.start(tracer, request, route, requestId);
    }

    /** Exports what is queued (bounded by {@link #FLUSH_SECONDS}) and stops. */
    @Override
    public void close() {
        if (provider != null) {
            provider.shutdown().join(FLUSH_SECONDS, TimeUnit.SECONDS);
        }
    }
}
