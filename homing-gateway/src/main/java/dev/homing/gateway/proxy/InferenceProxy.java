package dev.homing.gateway.proxy;

import dev.homing.gateway.http.BodyReader;
import dev.homing.gateway.http.RequestRecord;
import dev.homing.gateway.kvevents.ExactRouting;
import dev.homing.gateway.metrics.GatewayMetrics;
import dev.homing.gateway.resilience.CircuitBreakers;
import dev.homing.gateway.resilience.RetryPolicy;
import dev.homing.gateway.tracing.Tracing;
import dev.homing.gateway.workers.WorkerRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpServerRequest;

/**
 * The proxy behind the inference routes: one exchange per request, from its admission to its access-log line
 * ({@link InferenceExchange}, or {@link PrefillDecodeExchange} for a prefill/decode pair), and what all exchanges
 * share: admission control, the worker registry and circuit breakers, the HTTP client to the workers, metrics and
 * the limits. Immutable; every part it holds is thread-safe.
 *
 * @param bodies          reads request bodies within the gateway's body memory
 * @param maxPayloadBytes the largest request body read ({@code --max-payload-size}); larger gets 413
 * @param requestTimeouts every exchange's request timeout: how long a request may take from when it is first sent
 *                        until its answer ends
 * @param retryPolicy     when and after how long a failed attempt is tried again
 * @param markUnreachable take a worker that refuses a connection out of rotation until health probes bring it back;
 *                        false when health checks are off, as nothing would bring it back
 * @param prefillDecode   every request goes to a prefill/decode pair ({@code --pd-disaggregation})
 * @param dpAware         a worker may be one data-parallel rank of an engine ({@code --dp-aware})
 * @param tracing         the requests' spans ({@link Tracing#OFF} unless {@code --enable-trace})
 * @param exactRouting    the exact view's lookups, or null when {@code --kv-events off}
 */
public record InferenceProxy(Vertx vertx, HttpClient client, GatewayMetrics metrics, WorkerRegistry registry,
                             CircuitBreakers breakers, InferenceAdmission admission, BodyReader bodies,
                             long maxPayloadBytes, RequestTimeouts requestTimeouts, RetryPolicy retryPolicy,
                             boolean markUnreachable, boolean prefillDecode, boolean dpAware, Tracing tracing,
                             ExactRouting exactRouting) {

    /**
     * Takes over an inference request that passed the route checks: from here its exchange answers it and writes
     * {@code record} once. Call on the request's event loop.
     */
    public void handle(HttpServerRequest request, InferenceRoute route, RequestRecord record) {
        ExchangeLifecycle exchange = prefillDecode ? new PrefillDecodeExchange(this, request, route, record)
                : new InferenceExchange(this, request, route, record);
        exchange.start();
    }
}
