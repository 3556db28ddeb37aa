package dev.homing.bench.live;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads engines' {@code /metrics} before and after a run, off the load path. Blocking (the JDK client): call it from
 * the command's thread, never from an event loop. Thread-safe.
 */
public final class EngineMetricsReader {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

    /** The counters of the engine at {@code baseUrl}; fails with a message naming the engine if it cannot. */
    public EngineCounters read(String baseUrl) {
        String url = baseUrl.replaceAll("/+$", "") + "/metrics";
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET " + url + " answered " + response.statusCode());
            }
            return EngineCounters.parse(response.body());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + url + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + url, e);
        }
    }
}
