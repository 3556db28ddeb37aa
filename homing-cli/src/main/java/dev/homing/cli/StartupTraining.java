package dev.homing.cli;

import dev.homing.gateway.Gateway;
import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.gateway.cli.ProxyWarmup;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.logging.LogSetup;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The training run of the JDK's ahead-of-time cache (JEP 483, 514), which {@code bin/homing} records once per build
 * with {@code -XX:AOTCacheOutput} and passes to every later run with {@code -XX:AOTCache}: the cache then holds the
 * classes, already parsed and linked, that the gateway and a simulated engine load while starting and serving (about
 * 6,000). picocli's classes stay out (the JDK does not cache classes of its old class-file version), so the command
 * line is left to the real runs. The training's method profiles are left out too ({@code bin/homing} records with
 * {@code -XX:-AOTRecordTraining}): on JDK 25 a run that replays them keeps thousands of methods the training never
 * compiled with C2, the request path's among them, in C1's code however hot they get: a method the training ran
 * fewer times, or only inlined, waits for thresholds scaled up 250 times, in practice for ever.
 *
 * <p>In this JVM, on loopback: two simulated engines, and a gateway in front of them started as {@code homing launch}
 * starts it (its flags, its logging set-up); waits for {@code /readiness}, sends chat completions (plain and
 * streamed), reads {@code /v1/models} and {@code /metrics}, then drives the proxy path for a few thousand requests
 * ({@link #PROXY_PATH_REQUESTS}), and stops everything. The JVM writes the cache when it exits.
 *
 * <p>Why the second part: it sends what the start-up warm-up sends (every route, plain and streamed, HTTP/1.1 and
 * h2c), so the classes of every request's way are in the cache, not only those of a plain chat completion.
 */
public final class StartupTraining {

    /** Requests of each kind, one at a time: every class of a request's way is loaded. */
    private static final int REQUESTS = 20;
    /**
     * Requests of the proxy path, as {@link ProxyWarmup#drive} sends them, in a second or two: every kind of request
     * it mixes (route, streaming, protocol) many times over.
     */
    static final int PROXY_PATH_REQUESTS = 4_000;
    /** As {@code homing launch} logs by default, so the cache holds what logging a request loads. */
    private static final String LOG_LEVEL = "info";
    private static final Duration TIME_LIMIT = Duration.ofSeconds(60);
    private static final String CHAT = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello, how are you?\"}],"
            + "\"max_tokens\":8,\"stream\":%s}";

    private StartupTraining() {
    }

    public static void main(String[] args) throws InterruptedException {
        try {
            train(TIME_LIMIT, REQUESTS, LOG_LEVEL);
        } catch (RuntimeException e) {
            System.err.println("startup training failed: " + e);
            System.exit(1);
        }
        System.exit(0);
    }

    /**
     * Runs the training workload with {@code requests} of each kind; fails if the gateway is not ready within
     * {@code limit} or a request fails.
     */
    static void train(Duration limit, int requests, String logLevel) throws InterruptedException {
        train(limit, requests, PROXY_PATH_REQUESTS, logLevel);
    }

    /** As {@link #train(Duration, int, String)}, with {@code proxyPathRequests} in the proxy-path part. */
    static void train(Duration limit, int requests, int proxyPathRequests, String logLevel)
            throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        List<SimEngineServer> engines = new ArrayList<>();
        Gateway gateway = null;
        // The client is Vert.x's, as the gateway's own: the JDK's would put its TLS classes in every start.
        Vertx clientVertx = Vertx.vertx();
        try {
            HttpClient client = clientVertx.createHttpClient();
            for (int i = 0; i < 2; i++) {
                engines.add(SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(100)));
            }
            GatewayConfig config = LaunchCommand.parse("--host", "127.0.0.1", "--port", "0",
                    "--prometheus-host", "127.0.0.1", "--prometheus-port", "0", "--log-level", logLevel,
                    "--worker-urls", String.join(",", engines.stream().map(SimEngineServer::url).toList()));
            LogSetup.apply(config);
            gateway = Gateway.start(config);
            int port = gateway.port();
            while (status(client, HttpMethod.GET, port, "/readiness", null) != 200) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the gateway was not ready within " + limit);
                }
                Thread.sleep(20);
            }
            for (int i = 0; i < requests; i++) {
                for (boolean stream : new boolean[] {false, true}) {
                    expectOk(client, HttpMethod.POST, port, "/v1/chat/completions", CHAT.formatted(stream));
                }
            }
            expectOk(client, HttpMethod.GET, port, "/v1/models", null);
            expectOk(client, HttpMethod.GET, gateway.metricsPort(), "/metrics", null);
            ProxyWarmup.drive(clientVertx, port, true, proxyPathRequests, deadline, () -> false);
        } finally {
            if (gateway != null) {
                gateway.close(Duration.ZERO);
            }
            engines.forEach(SimEngineServer::close);
            clientVertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
        }
    }

    private static void expectOk(HttpClient client, HttpMethod method, int port, String path, String body)
            throws InterruptedException {
        int status = status(client, method, port, path, body);
        if (status != 200) {
            throw new IllegalStateException(method + " " + path + " answered " + (status < 0 ? "nothing" : status));
        }
    }

    /** The status of a request to 127.0.0.1:{@code port} (its body read whole), or -1 if it failed. */
    private static int status(HttpClient client, HttpMethod method, int port, String path, String body)
            throws InterruptedException {
        try {
            return client.request(method, port, "127.0.0.1", path)
                    .compose(request -> body == null ? request.send()
                            : request.putHeader("content-type", "application/json").send(body))
                    .compose(response -> response.body().map(read -> response.statusCode()))
                    .await(10, TimeUnit.SECONDS);
        } catch (RuntimeException | TimeoutException e) {
            return -1;
        }
    }
}
