package dev.homing.gateway.security;

import dev.homing.config.Settings;

import dev.homing.gateway.testing.FakeWorker;
import dev.homing.gateway.testing.RunningGateway;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A worker's host name is looked up once, when it registers; every connection goes to that address, so a DNS answer
 * that changes afterwards (rebinding a checked name to a metadata or internal address) cannot redirect the gateway.
 * The names here exist only in the test's own resolver: a gateway that looked one up again at connect time would
 * not reach the worker at all.
 */
class DnsRebindingTest {

    private static final String BODY = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    /** DNS as a table the test rewrites, counting every lookup. */
    private final Map<String, String> dns = new ConcurrentHashMap<>();
    private final List<String> lookups = new CopyOnWriteArrayList<>();
    private final WorkerHostAllowList.Resolver resolver = host -> {
        lookups.add(host);
        String address = dns.get(host);
        if (address == null) {
            return InetAddress.getAllByName(host);
        }
        return new InetAddress[] {InetAddress.getByAddress(host, InetAddress.getByName(address).getAddress())};
    };

    private static int portOf(FakeWorker worker) {
        return URI.create(worker.url()).getPort();
    }

    @Test
    void aWorkerAddedByNameIsReachedAtTheCheckedAddressWhateverTheNameResolvesToLater()
            throws UnknownHostException {
        dns.put("gpu.rebind.test", "127.0.0.1");
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.WORKER_HOST_ALLOW_LIST, List.of("127.0.0.0/8")), resolver)) {
            String url = "http://gpu.rebind.test:" + portOf(worker);

            assertThat(gateway.post("/workers", "{\"url\":\"" + url + "\"}").statusCode()).isEqualTo(202);
            // Checked and allowed as loopback; now the name points at the cloud metadata service.
            dns.put("gpu.rebind.test", "169.254.169.254");
            await().atMost(Duration.ofSeconds(30)).until(() -> gateway.gateway().registry().healthyCount() == 1);
            HttpResponse<String> answer = gateway.post("/v1/chat/completions", BODY);

            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(worker.received()).hasSize(1);
            assertThat(worker.received().getFirst().headers().get("host")).as("the name stays the Host header")
                    .isEqualTo("gpu.rebind.test:" + portOf(worker));
            assertThat(lookups.stream().filter("gpu.rebind.test"::equals)).as("lookups of the name").hasSize(1);
        }
    }

    @Test
    void aConfiguredWorkerGivenByNameIsResolvedOnceWhenItRegisters() {
        dns.put("static.worker.test", "127.0.0.1");
        try (FakeWorker worker = FakeWorker.start("m");
             RunningGateway gateway = RunningGateway.start(RunningGateway.config(List.of())
                     .with(Settings.WORKER_URLS, List.of("http://static.worker.test:" + portOf(worker))), resolver)) {
            dns.put("static.worker.test", "169.254.169.254");
            for (int i = 0; i < 3; i++) {
                assertThat(gateway.post("/v1/chat/completions", BODY).statusCode()).isEqualTo(200);
            }
            assertThat(gateway.get("/get_model_info").statusCode()).isEqualTo(200);

            assertThat(worker.received()).hasSize(3);
            assertThat(lookups.stream().filter("static.worker.test"::equals)).as("lookups of the name").hasSize(1);
        }
    }
}
