package dev.homing.gateway.tracing;

import dev.homing.core.policy.Decision;
import dev.homing.gateway.resilience.UpstreamOutcome;
import io.vertx.core.MultiMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What tracing costs a request when it is off (the default): {@code hooksOff} makes every call an exchange and its
 * one attempt make on the tracer, in their order, with {@link Tracing#OFF}; {@code before} makes none of them, as the
 * request path did before tracing (what is left is JMH's own cost). Run with {@code -prof gc}: off must allocate
 * nothing ({@code gc.alloc.rate.norm} 0 B/op) and cost no more than the noise around {@code before}
 * (docs/BENCHMARKS.md).
 *
 * <p>The tracer is a field, not a constant, as in the gateway (the proxy's record holds it), so the JIT cannot fold
 * the check away. Off never reads the request, the worker or the headers, so they are null or empty here.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders"})
@State(Scope.Thread)
public class TracingOffBenchmark {

    private static final String ROUTE = "/v1/chat/completions";

    public Tracing tracing = Tracing.OFF;
    public String requestId = "chatcmpl-0123456789";
    public String model = "llama-3.1-8b";
    public String policy = "load_aware_affinity";
    public String worker = "http://10.0.0.7:30000";
    public Decision decision = new Decision(3, "affinity", 900, 1_000);
    public MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    public long heldNanos = 1_500_000;
    public int status = 200;

    @Benchmark
    public void hooksOff(Blackhole sink) {
        RequestSpan trace = tracing.request(null, ROUTE, requestId);
        sink.consume(trace.traceId());
        trace.routed(model, policy, decision, worker);
        trace.held(heldNanos);
        UpstreamSpan attempt = trace.attempt(null, ROUTE);
        attempt.inject(headers);
        attempt.answered(status);
        trace.firstToken();
        attempt.usage(1_000, 900);
        attempt.end(UpstreamOutcome.SUCCESS);
        trace.end(status, null);
    }

    @Benchmark
    public void before(Blackhole sink) {
        sink.consume(requestId);
    }
}
