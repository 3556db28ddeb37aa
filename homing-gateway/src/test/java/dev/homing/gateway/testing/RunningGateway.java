package dev.homing.gateway.testing;

import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.gateway.Gateway;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.discovery.DiscoverySettings;
import dev.homing.gateway.security.WorkerHostAllowList;
import dev.homing.gateway.tracing.Tracing;
import dev.homing.gateway.workers.Worker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import static org.awaitility.Awaitility.await;

/**
 * A gateway on a loopback ephemeral port in front of the given workers, ready when every worker takes traffic,
 * with a small blocking client for tests.
 */
public final class RunningGateway implements AutoCloseable {

    /**
     * HTTP/1.1: test gateways come and go on reused ephemeral ports, and a pooled HTTP/2 connection to a port's
     * previous owner would hang a later test. {@link #sendOverHttp2} covers h2c explicitly.
     */
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1).build();

    private final Gateway gateway;

    private RunningGateway(Gateway gateway) {
        this.gateway = gateway;
    }

    /**
     * Test defaults, to change with {@link Config#with}: loopback, ephemeral ports, a short grace period, admin
     * routes open (AdminAccessTest covers them).
     */
    public static Config config(List<FakeWorker> workers) {
        return Config.defaults(Scope.GATEWAY).with(Settings.HOST, "127.0.0.1").with(Settings.PORT, 0)
                .with(Settings.PROMETHEUS_HOST, "127.0.0.1").with(Settings.PROMETHEUS_PORT, 0)
                .with(Settings.WORKER_URLS, workers.stream().map(FakeWorker::url).toList())
                .with(Settings.SHUTDOWN_GRACE_PERIOD_SECS, 1L).with(Settings.ALLOW_UNAUTHENTICATED_ADMIN, true);
    }

    /**
     * Test defaults in prefill/decode mode, the workers given as {@code --prefill} (each with the bootstrap port it
     * reports, so the gateway learns it) and {@code --decode}.
     */
    public static Config prefillDecodeConfig(List<FakeWorker> prefills, List<FakeWorker> decodes) {
        return prefillDecodeUrls(prefills.stream().map(FakeWorker::url).toList(),
                decodes.stream().map(FakeWorker::url).toList());
    }

    /** As {@link #prefillDecodeConfig}, with the workers' {@code --prefill} and {@code --decode} values. */
    public static Config prefillDecodeUrls(List<String> prefills, List<String> decodes) {
        return config(List.of()).with(Settings.PD_DISAGGREGATION, true).with(Settings.PREFILL, prefills)
                .with(Settings.DECODE, decodes);
    }

    /** A gateway with {@code config} (checked first), once every worker takes traffic. */
    public static RunningGateway start(Config config) {
        return start(config, java.net.InetAddress::getAllByName);
    }

    /** As {@link #start(Config)}, looking worker host names up in {@code resolver}. */
    public static RunningGateway start(Config config, WorkerHostAllowList.Resolver resolver) {
        return onceEveryWorkerServes(Gateway.start(new GatewayConfig(config), null, resolver), config);
    }

    /** As {@link #start(Config)}, the requests' spans going to {@code tracing}. */
    public static RunningGateway start(Config config, Tracing tracing) {
        return onceEveryWorkerServes(Gateway.start(new GatewayConfig(config), null,
                java.net.InetAddress::getAllByName, tracing), config);
    }

    /** A gateway started some other way, with {@code config}, once every worker takes traffic. */
    public static RunningGateway around(Gateway gateway, Config config) {
        return onceEveryWorkerServes(gateway, config);
    }

    private static RunningGateway onceEveryWorkerServes(Gateway gateway, Config config) {
        RunningGateway running = new RunningGateway(gateway);
        int workers = new GatewayConfig(config).workers().size();
        await().atMost(Duration.ofSeconds(30)).until(() -> running.gateway.registry().healthyCount() == workers);
        return running;
    }

    /** As {@link #start(Config)}, discovering workers from Kubernetes pods too. */
    public static RunningGateway start(Config config, DiscoverySettings discovery) {
        RunningGateway running = new RunningGateway(Gateway.start(new GatewayConfig(config), discovery));
        await().atMost(Duration.ofSeconds(30)).until(
                () -> running.gateway.registry().healthyCount() >= config.get(Settings.WORKER_URLS).size());
        return running;
    }

    public static RunningGateway start(List<FakeWorker> workers, String policy) {
        return start(config(workers).with(Settings.POLICY, policy));
    }

    public Gateway gateway() {
        return gateway;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + gateway.port() + path;
    }

    public HttpResponse<String> post(String path, String body, String... headers) {
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofString(body)).header("content-type", "application/json");
        if (headers.length > 0) {
            req.headers(headers);
        }
        return send(req.build());
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(20)).GET().build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        return send(CLIENT, request);
    }

    /** Sends with a fresh client that upgrades to HTTP/2 (h2c), as some SDKs do. */
    public HttpResponse<String> sendOverHttp2(HttpRequest request) {
        try (HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build()) {
            return send(h2, request);
        }
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Requests sent with {@link #openPosts} and left open; closing them is their clients leaving. */
    public record OpenPosts(List<Socket> sockets) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    /** Sends {@code count} requests as {@link #openPost} does, the {@code i}-th with {@code body.apply(i)}. */
    public OpenPosts openPosts(String path, int count, IntFunction<String> body) throws IOException {
        OpenPosts open = new OpenPosts(new ArrayList<>());
        try {
            for (int i = 0; i < count; i++) {
                open.sockets().add(openPost(path, body.apply(i)));
            }
        } catch (IOException e) {
            open.close();
            throw e;
        }
        return open;
    }

    /**
     * Sends {@code POST path} with a JSON body on a plain socket of its own and returns it open, so a test can read
     * the raw answer (reads time out after 10 s) or leave, which is closing it.
     */
    public Socket openPost(String path, String body) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", gateway.port()), 5_000);
            socket.setSoTimeout(10_000);
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                    + "content-length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(bytes);
            out.flush();
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** The gateway's Prometheus exposition, as scraped from its metrics port. */
    public String scrapeMetrics() {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.metricsPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).GET().build()).body();
    }

    /** The value of one sample of the metrics exposition (name and labels as printed), or 0 when absent. */
    public double metric(String sample) {
        for (String line : scrapeMetrics().split("\n")) {
            if (line.startsWith(sample + " ")) {
                return Double.parseDouble(line.substring(sample.length() + 1).trim());
            }
        }
        return 0;
    }

    /** Sum of in-flight counts over every registered worker. */
    public int inFlight() {
        return gateway.registry().workers().stream().mapToInt(Worker::inFlight).sum();
    }

    /**
     * Waits, up to 30 s, until no request is in flight: a client may hold a whole answer a moment before the gateway
     * sees the worker's end of it.
     */
    public void awaitNothingInFlight() {
        await().atMost(Duration.ofSeconds(30)).until(() -> inFlight() == 0);
    }

    @Override
    public void close() {
        gateway.close();
    }
}
