package dev.homing.cli.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The fault suite's HTTP client over loopback: inference requests that always come back as an {@link Answer}
 * (never an exception), and plain GETs and POSTs for health, readiness, metrics and engine controls.
 */
final class FaultClient implements AutoCloseable {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /**
     * How long a control call (health, readiness, metrics, an engine's load) may take. Generous: with both cores busy
     * beside other builds a scrape can take seconds, and a control call that gives up early ends a test that was
     * going well.
     */
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT).build();
    private final Duration requestTimeout;

    /** @param requestTimeout how long an inference request may take before it counts as lost */
    FaultClient(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    /** POSTs a JSON {@code body} with {@code x-request-id: requestId}; whatever happens is in the answer. */
    Answer post(String url, String requestId, String body, boolean stream) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(requestTimeout)
                .header("content-type", "application/json").header("x-request-id", requestId)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(requestId, stream, response.statusCode(),
                    response.headers().firstValue("retry-after").orElse(null), response.body(), null);
        } catch (IOException e) {
            return Answer.broken(requestId, stream, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Answer.broken(requestId, stream, e);
        }
    }

    /** A GET or an empty POST for control routes; throws when the server cannot be reached. */
    HttpResponse<String> send(String method, String url) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(CONTROL_TIMEOUT)
                .method(method, HttpRequest.BodyPublishers.noBody()).build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** A control call with a JSON body (a worker to add); throws when the server cannot be reached. */
    HttpResponse<String> postJson(String url, String json) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url)).timeout(CONTROL_TIMEOUT)
                .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException("POST " + url, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    HttpResponse<String> get(String url) {
        try {
            return send("GET", url);
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + url, e);
        }
    }

    /** Whether a GET answers 200 now; false when the server is not up. */
    boolean answers200(String url) {
        try {
            return send("GET", url).statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
