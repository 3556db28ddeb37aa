package dev.homing.sim.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** A blocking test client for one simulated engine, over loopback. */
class SimEngineClient {
    static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(TIMEOUT).build();
    private final Supplier<String> url;

    /** A chat's next turn: {@code turn}'s messages, then the engine's {@code answer} and the user's {@code question}. */
    static ObjectNode nextTurn(ObjectNode turn, String answer, String question) {
        ObjectNode next = turn.deepCopy();
        ArrayNode messages = next.withArray("messages");
        messages.addObject().put("role", "assistant").put("content", answer);
        messages.addObject().put("role", "user").put("content", question);
        return next;
    }

    /** The message of an answer in the OpenAI error shape with {@code status}, as status and code both. */
    static String errorMessage(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        JsonNode error = JSON.readTree(response.body()).path("error");
        assertThat(error.path("code").intValue()).isEqualTo(status);
        return error.path("message").stringValue();
    }

    SimEngineClient(SimEngineServer engine) {
        this(engine::url);
    }

    /** A client of the engine at the address {@code url} gives when a request is sent: one that starts later. */
    SimEngineClient(Supplier<String> url) {
        this.url = url;
    }

    HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(URI.create(url() + path)).timeout(TIMEOUT)
            .header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(url() + path)).timeout(TIMEOUT).GET().build());
    }

    JsonNode postJson(String path, String body) {
        return json("POST", path, post(path, body));
    }

    /** {@code GET path}'s JSON answer; fails the test on any status but 200. */
    JsonNode getJson(String path) {
        return json("GET", path, get(path));
    }

    HttpClient http() {
        return http;
    }

    String url() {
        return url.get();
    }

    private static JsonNode json(String method, String path, HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new AssertionError(method + " " + path + " gave " + response.statusCode() + ": " + response.body());
        }
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
