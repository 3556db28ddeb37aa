package dev.homing.gateway.proxy;

import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ForwardedHeadersTest {

    @Test
    void allowedClientHeadersGoToTheWorkerLowerCasedWhateverTheirCase() {
        MultiMap client = MultiMap.caseInsensitiveMultiMap().add("TraceParent", "00-a-b-01")
                .add("X-Request-Id-Extra", "e").add("Cookie", "secret=1").add("Content-Type", "application/json");
        MultiMap out = MultiMap.caseInsensitiveMultiMap();

        ForwardedHeaders.toWorker(client, out, "req-1", null);

        assertThat(out.names()).containsExactlyInAnyOrder("traceparent", "x-request-id-extra", "content-type",
                "x-request-id", "x-homing-hops");
        assertThat(out.get("traceparent")).isEqualTo("00-a-b-01");
        assertThat(out.get("x-request-id")).isEqualTo("req-1");
    }

    @Test
    void theWorkersOwnKeyReplacesTheClientsAndAJsonContentTypeIsAddedWhenMissing() {
        MultiMap client = MultiMap.caseInsensitiveMultiMap().add("Authorization", "Bearer client")
                .add("X-Request-Id", "from-client");
        MultiMap out = MultiMap.caseInsensitiveMultiMap();

        ForwardedHeaders.toWorker(client, out, "req-2", "Bearer worker");

        assertThat(out.getAll("authorization")).containsExactly("Bearer worker");
        assertThat(out.getAll("x-request-id")).containsExactly("req-2");
        assertThat(out.get("content-type")).isEqualTo("application/json");
    }

    @Test
    void hopByHopHeadersStayOnTheWorkersConnection() {
        MultiMap worker = MultiMap.caseInsensitiveMultiMap().add("Content-Type", "text/event-stream")
                .add("Transfer-Encoding", "chunked").add("Connection", "keep-alive").add("X-Worker", "w1")
                .add("TE", "trailers");
        MultiMap client = MultiMap.caseInsensitiveMultiMap();

        ForwardedHeaders.toClient(worker, client);

        assertThat(client.names()).containsExactlyInAnyOrder("Content-Type", "X-Worker");
    }
}
