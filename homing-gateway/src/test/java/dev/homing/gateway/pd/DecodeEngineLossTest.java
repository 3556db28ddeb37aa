package dev.homing.gateway.pd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.homing.config.Settings;
import dev.homing.gateway.testing.Closing;
import dev.homing.gateway.testing.RunningGateway;
import dev.homing.gateway.testing.SimEngines;
import dev.homing.gateway.testing.TestVertx;
import dev.homing.sim.http.SimEngineServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pair's stream belongs to its decode engine: when that engine goes away after the client's first byte, the stream
 * cannot be run again elsewhere, and it ends with an SSE error event rather than a silent cut.
 */
class DecodeEngineLossTest {

    @RegisterExtension
    final Closing closing = new Closing();

    /** Slow enough that a long answer is still streaming when its engine goes. */
    private static SimEngineServer engine(String mode) {
        return SimEngineServer.start(TestVertx.get(), SimEngines.options(SimEngines.config()
                .with(Settings.TIME_SCALE, 5.0).with(Settings.DISAGGREGATION_MODE, mode)
                .with(Settings.DISAGGREGATION_BOOTSTRAP_PORT, 0)));
    }

    @Test
    void aStreamWhoseDecodeEngineGoesAfterItsFirstByteEndsWithAnSseErrorEvent() throws Exception {
        SimEngineServer prefill = closing.add(engine("prefill"));
        SimEngineServer decode = engine("decode");
        AtomicBoolean decodeGone = new AtomicBoolean();
        closing.add((AutoCloseable) () -> {
            if (!decodeGone.get()) {
                decode.close();
            }
        });
        RunningGateway gateway = closing.add(RunningGateway.start(RunningGateway.prefillDecodeUrls(
                List.of(prefill.url()), List.of(decode.url()))));
        HttpRequest request = HttpRequest.newBuilder(URI.create(gateway.url("/generate")))
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                        "{\"text\":\"a long story\",\"stream\":true,\"sampling_params\":{\"max_new_tokens\":4000}}"))
                .build();

        String last = "";
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<Stream<String>> response = client.send(request, HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).isEqualTo(200);
            Iterator<String> lines = response.body().filter(line -> line.startsWith("data: ")).iterator();
            assertThat(lines.next()).startsWith("data: {");
            decode.close();
            decodeGone.set(true);
            while (lines.hasNext()) {
                last = lines.next();
            }
        }

        assertThat(last).startsWith("data: {\"error\":");
        gateway.awaitNothingInFlight();
    }
}
