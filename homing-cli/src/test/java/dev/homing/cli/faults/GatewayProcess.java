package dev.homing.cli.faults;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * A gateway process ({@code homing launch}) on loopback in front of simulated engines, with its metrics listener on
 * a port of its own, a heap bound given up front, and health checks and worker probes every second so a scenario
 * sees workers come and go in seconds: the process and the two ports it announced.
 */
record GatewayProcess(HomingProcess process, int port, int metricsPort) {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern LISTENING =
            Pattern.compile("gateway listening on http://127\\.0\\.0\\.1:(\\d+) \\(.*metrics port (\\d+)\\)");

    /**
     * Starts the gateway and waits until it listens. It binds ports the OS picks and says which, as engines do.
     *
     * @param heap  the {@code -Xmx} value, e.g. {@code 512m}: the gateway's heap bound is a real one
     * @param flags {@code homing launch} flags on top of the loopback, port and worker ones
     */
    static GatewayProcess start(String heap, List<EngineProcess> engines, List<String> flags, Path dir) {
        return start(heap, 0, engines.stream().map(EngineProcess::url).toList(), flags, dir);
    }

    /**
     * As {@link #start(String, List, List, Path)}, on {@code port} (0: one the OS picks) in front of any workers,
     * another gateway or this one included.
     */
    static GatewayProcess start(String heap, int port, List<String> workerUrls, List<String> flags, Path dir) {
        return startWith(heap, port, List.of("--worker-urls", String.join(",", workerUrls)), flags, dir);
    }

    /** As {@link #start}, on {@code port} (0: any), its workers given by {@code workerFlags} ({@code --prefill ...}). */
    static GatewayProcess startWith(String heap, int port, List<String> workerFlags, List<String> flags, Path dir) {
        List<String> args = new ArrayList<>(List.of("launch", "--host", "127.0.0.1", "--port", String.valueOf(port),
                "--prometheus-host", "127.0.0.1", "--prometheus-port", "0",
                "--worker-startup-check-interval", "1", "--health-check-interval-secs", "1"));
        args.addAll(workerFlags);
        args.addAll(flags);
        HomingProcess process = HomingProcess.start("gateway", List.of("-Xmx" + heap), args, dir);
        try {
            Matcher listening = process.awaitAnnouncement(LISTENING, ProcessFleet.START_TIMEOUT);
            return new GatewayProcess(process, Integer.parseInt(listening.group(1)),
                    Integer.parseInt(listening.group(2)));
        } catch (RuntimeException | Error e) {
            process.close(); // not yet in the fleet, so nobody else would stop it
            throw e;
        }
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The gateway's {@code /metrics} page now. */
    PrometheusText metrics(FaultClient control) {
        return new PrometheusText(control.get("http://127.0.0.1:" + metricsPort + "/metrics").body());
    }

    /** Heap in use now (live objects and garbage not yet collected), from the JVM metrics. */
    long heapUsedBytes(FaultClient control) {
        return heapUsedBytes(metrics(control));
    }

    /** Heap in use (live objects and garbage not yet collected) on a scraped metrics page. */
    static long heapUsedBytes(PrometheusText metrics) {
        return (long) metrics.sum("jvm_memory_used_bytes", "area", "heap");
    }

    /**
     * Heap that has survived a collection (in use, less the young generation's eden, which holds only objects made
     * since the last one) on a scraped metrics page: what the gateway keeps, without the garbage the collector has
     * not come to yet, whose amount is the collector's choice.
     */
    static long retainedHeapBytes(PrometheusText metrics) {
        return heapUsedBytes(metrics)
                - (long) metrics.sumWhere("jvm_memory_pool_used_bytes", "pool", pool -> pool.contains("Eden"));
    }

    /** Direct buffers in use (Netty's, for the sockets) on a scraped metrics page. */
    static long directBufferBytes(PrometheusText metrics) {
        return (long) metrics.sum("jvm_buffer_pool_used_bytes", "pool", "direct");
    }

    /** Healthy workers as {@code /readiness} reports them; 0 while the gateway is not up or not ready. */
    int healthyWorkers(FaultClient control) {
        try {
            HttpResponse<String> readiness = control.send("GET", url() + "/readiness");
            return readiness.statusCode() == 200 ? JSON.readTree(readiness.body()).path("healthy_workers").asInt()
                    : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** The circuit state the gateway exports for a worker: 0 closed, 1 open, 2 half-open. */
    int circuitState(FaultClient control, EngineProcess engine) {
        return circuitState(metrics(control), engine);
    }

    /** The circuit state of a worker on a scraped metrics page: 0 closed, 1 open, 2 half-open. */
    static int circuitState(PrometheusText metrics, EngineProcess engine) {
        return (int) metrics.sum("smg_worker_cb_state", "worker", engine.url());
    }

    @Override
    public String toString() {
        return "gateway " + url();
    }
}
