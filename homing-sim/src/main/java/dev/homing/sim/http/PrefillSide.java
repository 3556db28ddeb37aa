package dev.homing.sim.http;

import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.KvEventSink;
import dev.homing.sim.model.KvTransferError;
import dev.homing.sim.model.PrefillEngine;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.RoomEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A prefill engine over HTTP: its inference items run on a {@link PrefillEngine}, and its bootstrap server (a second
 * listener) is where decode engines register rooms.
 *
 * <p>The bootstrap exchange, one HTTP request a room: a decode engine's {@code POST /kv/rooms/{room}} registers the
 * room and is answered when the room's prefill is done, with the hand-over ({@code prompt_tokens} and the
 * {@code cached_tokens} of this engine's cache), or with a 500 naming the room's {@code KVTransferError} when the
 * prefill was aborted. A decode engine that closes the connection first has withdrawn the room; a second
 * registration of a room is a 409. {@code GET /health} answers 200.
 *
 * <p>Invariant: a pending registration is answered or withdrawn exactly once, and leaves nothing behind either way.
 */
final class PrefillSide extends RoomSide<PrefillEngine> {
    static final String ROOMS_PATH = "/kv/rooms/";

    private final ObjectMapper json;
    private final ResponseRenderer renderer;
    /** Registrations waiting for their room's prefill, with the response that answers each. */
    private final Map<Long, HttpServerResponse> registrations = new HashMap<>();

    /** @param kvEvents the sink of the engine's KV events, or null when it publishes none */
    PrefillSide(Vertx vertx, EngineConfig engine, DisaggregationConfig disaggregation, double timeScale,
                Consumer<Progress> observer, ObjectMapper json, ResponseRenderer renderer, KvEventSink kvEvents) {
        super(vertx, publishing(new PrefillEngine(engine, disaggregation), kvEvents), "prefill", timeScale, observer);
        this.json = json;
        this.renderer = renderer;
    }

    private static PrefillEngine publishing(PrefillEngine engine, KvEventSink kvEvents) {
        if (kvEvents != null) {
            engine.publishKvEvents(kvEvents);
        }
        return engine;
    }

    @Override
    public Runnable start(InferenceRequest item, String rid, Listener listener) {
        long room = roomOf(item).room();
        refusedAsBadRequest(() -> driver.model().submit(room, generation(item), driver.virtualNow()));
        String failure = "Prefill bootstrap failed for request rank=0 req.rid='" + rid + "' req.bootstrap_room="
            + room + " with exception ";
        driver.listen(room, event -> {
            switch (event) {
                case RoomEvent.Tokens tokens -> {
                    listener.progress(tokens.progress());
                    if (tokens.ends()) {
                        handOver(room, tokens.progress());
                    }
                }
                case RoomEvent.Failed failed -> listener.failed(failure + failed.reason());
            }
        });
        driver.pumpSoon();
        return () -> {
            driver.forget(room);
            if (driver.model().abort(room, driver.virtualNow())) {
                answer(room, 500, renderer.error(500, KvTransferError.of(room, ABORTED)));
            }
            driver.pump();
        };
    }

    @Override
    public boolean computesPrompts() {
        return true;
    }

    @Override
    public void close() {
        driver.close();
    }

    /** A request to the bootstrap server. */
    void bootstrapRequest(HttpServerRequest http) {
        String path = http.path();
        if (http.method() == HttpMethod.GET && path.equals("/health")) {
            http.response().end();
        } else if (http.method() == HttpMethod.POST && path.startsWith(ROOMS_PATH)) {
            http.body().onSuccess(ignored -> register(http, path.substring(ROOMS_PATH.length())));
        } else {
            http.response().setStatusCode(404).putHeader("content-type", "application/json")
                .end(renderer.error(404, "no such bootstrap endpoint: " + http.method() + " " + path));
        }
    }

    private void register(HttpServerRequest http, String roomText) {
        long room;
        try {
            room = Long.parseLong(roomText);
        } catch (NumberFormatException e) {
            room = -1;
        }
        HttpServerResponse response = http.response().putHeader("content-type", "application/json");
        if (room < 0) {
            response.setStatusCode(400).end(renderer.error(400, "'" + roomText + "' is not a bootstrap room"));
            return;
        }
        if (!driver.model().register(room, driver.virtualNow())) {
            response.setStatusCode(409).end(renderer.error(409, "bootstrap room " + room + " is already registered"));
            return;
        }
        long registered = room;
        registrations.put(room, response);
        response.closeHandler(ignored -> {
            if (registrations.remove(registered, response)) {
                driver.model().withdraw(registered, driver.virtualNow());
                driver.pump();
            }
        });
        driver.pump();
    }

    /** The room's prefill is done: its decode engine learns what it needs to decode. */
    private void handOver(long room, Progress prefill) {
        ObjectNode body = json.createObjectNode();
        body.put("bootstrap_room", room);
        body.put("prompt_tokens", prefill.promptTokens());
        body.put("cached_tokens", prefill.cachedTokens());
        answer(room, 200, Buffer.buffer(json.writeValueAsBytes(body)));
    }

    private void answer(long room, int status, Buffer body) {
        HttpServerResponse response = registrations.remove(room);
        if (response != null && !response.closed() && !response.ended()) {
            response.setStatusCode(status).end(body);
        }
    }
}
