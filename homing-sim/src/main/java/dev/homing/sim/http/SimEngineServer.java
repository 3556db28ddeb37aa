package dev.homing.sim.http;

import dev.homing.sim.kvevents.KvEventEndpoints;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.transport.Transport;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * A started simulated engine, for the gateway's tests, the benchmarks and {@code homing demo}:
 * <pre>{@code
 * try (SimEngineServer engine = SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(100))) {
 *     client.post(engine.url() + "/v1/chat/completions", ...);
 * }
 * }</pre>
 * {@link #start} and {@link #close} block until the server listens or has stopped. Thread-safe.
 */
public final class SimEngineServer implements AutoCloseable {
    private static final long START_STOP_SECONDS = 30;

    /** The trace context an inference request came with: its {@code x-request-id} (or null) and {@code traceparent}. */
    public record ReceivedTrace(String requestId, String traceparent) {
    }

    /** Undeploys the engine, or closes the Vert.x instance it was started on when that is its own. */
    private final Supplier<Future<?>> stop;
    private final Ports ports;
    private final ReceivedTraceContexts traceContexts;

    /** Where the engine listens: kept from start-up, so that they still name it once it has stopped. */
    private record Ports(String host, int port, int bootstrapPort, List<KvEventEndpoints> kvEvents) {
    }

    private SimEngineServer(Supplier<Future<?>> stop, Ports ports, ReceivedTraceContexts traceContexts) {
        this.stop = stop;
        this.ports = ports;
        this.traceContexts = traceContexts;
    }

    /** Starts an engine on a Vert.x instance of its own ({@link #newVertx}), closed with it. */
    public static SimEngineServer start(SimEngineOptions options) {
        Vertx vertx = newVertx();
        try {
            return start(vertx, options, true);
        } catch (RuntimeException e) {
            vertx.close();
            throw e;
        }
    }

    /**
     * A Vert.x instance for engines: on Netty's epoll transport where it loads, whose timers sleep to the microsecond,
     * else on NIO, whose selector polls without sleeping for a timer due within half a millisecond (the engine's
     * timers at a high time scale are that short: {@link ModelDriver}).
     */
    public static Vertx newVertx() {
        Transport epoll = Transport.EPOLL;
        return Vertx.builder().withTransport(epoll != null && epoll.available() ? epoll : Transport.NIO).build();
    }

    /** Starts an engine on a shared Vert.x instance (it runs on one of its event loops). */
    public static SimEngineServer start(Vertx vertx, SimEngineOptions options) {
        return start(vertx, options, false);
    }

    private static SimEngineServer start(Vertx vertx, SimEngineOptions options, boolean ownsVertx) {
        SimEngineVerticle verticle = new SimEngineVerticle(options);
        String id = await(vertx.deployVerticle(verticle), "start the simulated engine on port " + options.port());
        Supplier<Future<?>> stop = ownsVertx ? vertx::close : () -> vertx.undeploy(id);
        Ports ports = new Ports(options.host(), verticle.actualPort(), verticle.actualBootstrapPort(),
            verticle.kvEventEndpoints());
        return new SimEngineServer(stop, ports, verticle.traceContexts());
    }

    public int port() {
        return ports.port();
    }

    /** A prefill engine's bootstrap port, where decode engines register rooms; -1 for any other engine. */
    public int bootstrapPort() {
        return ports.bootstrapPort();
    }

    /**
     * Where each data-parallel rank publishes its KV events (the ports its sockets bound), in rank order; empty when
     * the engine publishes none.
     */
    public List<KvEventEndpoints> kvEventEndpoints() {
        return ports.kvEvents();
    }

    /** The engine's base URL, e.g. {@code http://127.0.0.1:34567}. */
    public String url() {
        String host = ports.host();
        String literal = host.contains(":") ? "[" + host + "]" : host;
        return "http://" + literal + ":" + ports.port();
    }

    /** The trace contexts of the latest inference requests that carried a {@code traceparent}, oldest first. */
    public List<ReceivedTrace> receivedTraces() {
        return traceContexts.snapshot();
    }

    @Override
    public void close() {
        await(stop.get(), "stop the simulated engine");
    }

    private static <T> T await(Future<T> future, String what) {
        try {
            return future.toCompletionStage().toCompletableFuture().get(START_STOP_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to " + what, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out waiting to " + what, e);
        }
    }
}
