package dev.homing.gateway.integration;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineOptions;
import dev.homing.sim.http.SimEngineServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code POST /flush_cache} fanned out to simulated engines, one of them busy with a request. */
class FlushCacheTest {

    private static final JsonMapper JSON = JsonMapper.shared();

    private static final byte[] STARTED = "HTTP/1.1 200".getBytes(StandardCharsets.ISO_8859_1);

    private static SimEngineServer busy;
    private static SimEngineServer idle;
    private static RunningGateway gateway;

    @BeforeAll
    static void start() {
        // Real time: a long generation keeps its engine busy for as long as the test needs.
        SimEngineOptions options = SimEngines.options(SimEngines.config().with(Settings.TIME_SCALE, 1.0));
        busy = SimEngineServer.start(TestVertx.get(), options);
        idle = SimEngineServer.start(TestVertx.get(), options);
        gateway = RunningGateway.start(RunningGateway.config(List.of()).with(Settings.WORKER_URLS,
                List.of(busy.url(), idle.url())));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        busy.close();
        idle.close();
    }

    @Test
    void anEngineThatWillNotFlushWhileARequestRunsIsQuotedInThePartialAnswer() throws IOException {
        try (Socket running = longGenerationUnderWay(busy)) {
            HttpResponse<String> response = gateway.post("/flush_cache", "");

            assertThat(response.statusCode()).isEqualTo(502);
            JsonNode body = JSON.readTree(response.body());
            assertThat(body.path("status").asString()).isEqualTo("partial");
            JsonNode refused = outcomeOf(body, busy.url());
            assertThat(refused.path("success").asBoolean()).isFalse();
            assertThat(refused.path("error").asString()).isEqualTo("HTTP 400");
            assertThat(refused.path("status_code").asInt()).isEqualTo(400);
            assertThat(refused.path("message").asString())
                    .isEqualTo("cannot flush the cache while requests are running or waiting");
            assertThat(outcomeOf(body, idle.url()).path("success").asBoolean()).isTrue();
            assertThat(body.path("message").asString()).isEqualTo("1 of 2 workers did not flush their cache: "
                    + busy.url() + ": cannot flush the cache while requests are running or waiting");
        }
    }

    private static JsonNode outcomeOf(JsonNode body, String worker) {
        for (JsonNode outcome : body.path("workers")) {
            if (outcome.path("worker").asString().equals(worker)) {
                return outcome;
            }
        }
        throw new AssertionError("no outcome for " + worker + " in " + body);
    }

    /**
     * A streamed generation of far more tokens than the test lasts (100,000: a long while in real time), sent to {@code engine} directly, once its first
     * bytes came back (the engine has it then); closing the socket cancels it.
     */
    private static Socket longGenerationUnderWay(SimEngineServer engine) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", engine.port()), 5_000);
        socket.setSoTimeout(10_000);
        byte[] body = ("{\"text\":\"Tell me a very long story\",\"stream\":true,"
                + "\"sampling_params\":{\"max_new_tokens\":100000}}").getBytes(StandardCharsets.UTF_8);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /generate HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                + "content-length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        InputStream in = socket.getInputStream();
        byte[] head = in.readNBytes(STARTED.length);
        if (!new String(head, StandardCharsets.ISO_8859_1).equals(new String(STARTED, StandardCharsets.ISO_8859_1))) {
            socket.close();
            throw new IOException("the engine did not start the generation: " + new String(head,
                    StandardCharsets.UTF_8));
        }
        return socket;
    }
}
