package dev.homing.gateway.workers;

import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class WorkerLimitTest {

    @Test
    void pastMaxWorkersPostWorkersIsRefusedWith429() {
        try (RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                .with(Settings.MAX_WORKERS, 2))) {
            assertThat(gateway.post("/workers", "{\"url\":\"http://127.0.0.1:1\"}").statusCode()).isEqualTo(202);
            assertThat(gateway.post("/workers", "{\"url\":\"http://127.0.0.2:1\"}").statusCode()).isEqualTo(202);

            HttpResponse<String> third = gateway.post("/workers", "{\"url\":\"http://127.0.0.3:1\"}");

            assertThat(third.statusCode()).isEqualTo(429);
            assertThat(third.body()).contains("\"type\":\"rate_limit_error\"").contains("\"code\":\"too_many_workers\"")
                    .contains("2 workers registered").contains("--max-workers");
            assertThat(gateway.gateway().registry().workers()).hasSize(2);
        }
    }

    @Test
    void moreWorkerUrlsThanMaxWorkersIsAStartUpError() {
        var config = RunningGateway.config(List.of()).with(Settings.MAX_WORKERS, 2)
                .with(Settings.WORKER_URLS, List.of("http://127.0.0.1:1", "http://127.0.0.2:1", "http://127.0.0.3:1"));

        assertThatThrownBy(() -> new GatewayConfig(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-workers").hasMessageContaining("3 workers");
    }

    /**
     * Pending workers whose connects hang (their host's accept queue is full: the kernel drops the SYNs) hold little
     * each: the control plane's connection pool per worker is small. With the data plane's pool (16,384 places) each
     * held 134 KB here; now about 20 to 40 KB, mostly the connecting socket itself.
     */
    @Test
    void pendingWorkersWhoseConnectsHangHoldLittleHeapEach() throws IOException {
        int workers = 1_000;
        try (ServerSocket full = new ServerSocket();
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.MAX_WORKERS, workers))) {
            full.bind(new InetSocketAddress("0.0.0.0", 0), 1);
            List<Socket> queued = fillAcceptQueue(full.getLocalPort());
            long before = heapUsed();
            List<Worker> pending = new ArrayList<>();
            for (int i = 0; i < workers; i++) {
                pending.add(gateway.gateway().addWorker(WorkerSpec.of("http://127.0." + (1 + i / 250) + "."
                        + (1 + i % 250) + ":" + full.getLocalPort(), null)).worker());
            }
            // Each has timed out once and is connecting again, or about to.
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> pending.stream().allMatch(w -> w.unreachableReason() != null));

            long perWorker = (heapUsed() - before) / workers;

            assertThat(pending.getFirst().unreachableReason()).endsWith("timed out after 5 s");
            assertThat(perWorker).as("heap bytes per pending worker").isLessThan(64 * 1024);
            for (Socket socket : queued) {
                socket.close();
            }
        }
    }

    /**
     * Connects to {@code port} until a connect hangs: the listener's accept queue is full from then on. A connect
     * with room in the queue is done by the kernel within the call, and a late thread still finds it done, so the
     * limit only has to outlast the kernel on a busy machine; it is paid once, by the connect that hangs.
     */
    private static List<Socket> fillAcceptQueue(int port) throws IOException {
        List<Socket> queued = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            Socket socket = new Socket();
            queued.add(socket);
            try {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 3_000);
            } catch (SocketTimeoutException full) {
                return queued;
            }
        }
        throw new IllegalStateException("the accept queue of port " + port + " never filled");
    }

    private static long heapUsed() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
