package dev.homing.cli;

import dev.homing.gateway.Gateway;
import dev.homing.gateway.cli.LaunchCommand;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.logging.LogSetup;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of the JDK's ahead-of-time cache (JEP 483, 514, 515), which {@code bin/homing} records once per
 * build with {@code -XX:AOTCacheOutput} and passes to every later run with {@code -XX:AOTCache}: the cache then holds
 * the classes, already parsed and linked, that the gateway and a simulated engine load while starting (about 6,000),
 * and the method profiles of their first requests. picocli's classes stay out (the JDK does not cache classes of its
 * old class-file version), so the command line is left to the real runs.
 *
 * <p>In this JVM, on loopback: two simulated engines, and a gateway in front of them started as {@code homing launch}
 * starts it (its flags, its logging set-up); waits for {@code /readiness}, sends chat completions (plain and
 * streamed), reads {@code /v1/models} and {@code /metrics}, and stops everything. The JVM writes the cache when it
 * exits.
 */
public final class StartupTraining {

    /** Requests of each kind: enough for the first compilations to see the request path, a second or two. */
    private static final int REQUESTS = 20;
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
        long deadline = System.nanoTime() + limit.toNanos();
        List<SimEngineServer> engines = new ArrayList<>();
        Gateway gateway = null;
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            for (int i = 0; i < 2; i++) {
                engines.add(SimEngineServer.start(SimEngineOptions.defaults().withTimeScale(100)));
            }
            GatewayConfig config = LaunchCommand.parse("--host", "127.0.0.1", "--port", "0",
                    "--prometheus-host", "127.0.0.1", "--prometheus-port", "0", "--log-level", logLevel,
                    "--worker-urls", String.join(",", engines.stream().map(SimEngineServer::url).toList()));
            LogSetup.apply(config);
            gateway = Gateway.start(config);
            String url = "http://127.0.0.1:" + gateway.port();
            while (status(client, HttpRequest.newBuilder(URI.create(url + "/readiness"))) != 200) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the gateway was not ready within " + limit);
                }
                Thread.sleep(20);
            }
            for (int i = 0; i < requests; i++) {
                for (boolean stream : new boolean[] {false, true}) {
                    expectOk(client, HttpRequest.newBuilder(URI.create(url + "/v1/chat/completions"))
                            .header("content-type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(CHAT.formatted(stream))));
                }
            }
            expectOk(client, HttpRequest.newBuilder(URI.create(url + "/v1/models")));
            expectOk(client, HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + gateway.metricsPort() + "/metrics")));
        } finally {
            if (gateway != null) {
                gateway.close(Duration.ZERO);
            }
            engines.forEach(SimEngineServer::close);
        }
    }

    private static void expectOk(HttpClient client, HttpRequest.Builder request) throws InterruptedException {
        int status = status(client, request);
        if (status != 200) {
            throw new IllegalStateException(request.build().uri() + " answered " + (status < 0 ? "nothing" : status));
        }
    }

    /** The status of a request, or -1 if it could not be sent. */
    private static int status(HttpClient client, HttpRequest.Builder request) throws InterruptedException {
        try {
            return client.send(request.timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }
}
