package dev.homing.sim.http;

import dev.homing.sim.model.DisaggregationConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * A prefill engine and a decode engine on loopback, and a client that sends one body to both at once, as the gateway
 * does. Bodies name the prefill engine's bootstrap server with {@link #bootstrap}.
 */
final class PrefillDecodePair implements AutoCloseable {
    /** Fast, but slow enough that a loaded machine keeps its order of steps. */
    static final double TIME_SCALE = 200;

    final SimEngineServer prefill;
    final SimEngineServer decode;
    final SimEngineClient prefillClient;
    final SimEngineClient decodeClient;

    PrefillDecodePair(DisaggregationConfig roles) {
        this(roles, TIME_SCALE);
    }

    PrefillDecodePair(DisaggregationConfig roles, double timeScale) {
        SimEngineOptions options = SimEngineOptions.defaults().withTimeScale(timeScale);
        this.prefill = SimEngineServer.start(options.withMode(DisaggregationMode.PREFILL, roles));
        this.decode = SimEngineServer.start(options.withMode(DisaggregationMode.DECODE, roles));
        this.prefillClient = new SimEngineClient(prefill);
        this.decodeClient = new SimEngineClient(decode);
    }

    /** Both answers to one request. */
    record Answers(HttpResponse<String> prefill, HttpResponse<String> decode) {
        JsonNode prefillJson() {
            return SimEngineClient.JSON.readTree(prefill.body());
        }

        JsonNode decodeJson() {
            return SimEngineClient.JSON.readTree(decode.body());
        }
    }

    /** The bootstrap fields of {@code room} at this pair's prefill engine, to put in a JSON object. */
    String bootstrap(Object room) {
        return "\"bootstrap_host\":\"127.0.0.1\",\"bootstrap_port\":" + prefill.bootstrapPort()
            + ",\"bootstrap_room\":" + room;
    }

    /** Sends {@code body} to both engines at the same time and waits for both answers. */
    Answers send(String path, String body) {
        CompletableFuture<HttpResponse<String>> toPrefill = sendAsync(prefillClient, path, body);
        CompletableFuture<HttpResponse<String>> toDecode = sendAsync(decodeClient, path, body);
        try {
            return new Answers(toPrefill.get(30, TimeUnit.SECONDS), toDecode.get(30, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new AssertionError("no answer to " + path + " " + body, e);
        }
    }

    static CompletableFuture<HttpResponse<String>> sendAsync(SimEngineClient client, String path, String body) {
        return client.http().sendAsync(HttpRequest.newBuilder(URI.create(client.url() + path))
            .timeout(Duration.ofSeconds(30)).header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The rooms an engine still holds anything of (0 once every room is over). */
    static int rooms(SimEngineClient engine) {
        return SimEngineClient.JSON.readTree(engine.get("/get_server_info").body()).path("bootstrap_rooms").intValue();
    }

    /** The requests an engine is computing. */
    static int running(SimEngineClient engine) {
        return SimEngineClient.JSON.readTree(engine.get("/get_server_info").body())
            .at("/internal_states/0/num_running_reqs").intValue();
    }

    @Override
    public void close() {
        decode.close();
        prefill.close();
    }
}
