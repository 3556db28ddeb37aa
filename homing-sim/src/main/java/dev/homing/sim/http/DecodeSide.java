package dev.homing.sim.http;

import dev.homing.sim.model.DecodeEngine;
import dev.homing.sim.model.DisaggregationConfig;
import dev.homing.sim.model.EngineConfig;
import dev.homing.sim.model.KvTransferError;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.RoomEvent;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A decode engine over HTTP: each item waits on a {@link DecodeEngine} while its room is registered at the prefill
 * engine's bootstrap server ({@code POST http://bootstrap_host:bootstrap_port/kv/rooms/{room}}, answered when the
 * prefill is done; see {@link PrefillSide}). The answer hands the KV over: it crosses this engine's link, then the
 * item decodes. A room the prefill side failed, or a bootstrap server that cannot be reached or goes away, fails the
 * item at once with a {@code KVTransferError}; one whose prefill never comes fails at the bootstrap timeout, and its
 * registration is withdrawn by closing it.
 *
 * <p>Invariant: every item has at most one registration in flight, cancelled when the item ends any other way.
 */
final class DecodeSide extends RoomSide<DecodeEngine> {
    /**
     * Registrations wait for a whole prefill, so each holds a connection that long: enough of them for every request
     * a batch of engines could have in flight.
     */
    private static final int REGISTRATIONS_PER_PREFILL_ENGINE = 1024;

    private final ObjectMapper json;
    private final HttpClient bootstrap;
    /** Each waiting item's registration. */
    private final Map<Long, HttpClientRequest> registrations = new HashMap<>();

    DecodeSide(Vertx vertx, EngineConfig engine, DisaggregationConfig disaggregation, double timeScale,
               Consumer<Progress> observer, ObjectMapper json) {
        super(vertx, new DecodeEngine(engine, disaggregation), "decode", timeScale, observer);
        this.json = json;
        this.bootstrap = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(REGISTRATIONS_PER_PREFILL_ENGINE));
    }

    @Override
    public Runnable start(InferenceRequest item, String rid, Listener listener) {
        InferenceRequest.Bootstrap room = roomOf(item);
        refusedAsBadRequest(() -> driver.model().submit(room.room(), generation(item), driver.virtualNow()));
        String failure = "Decode transfer failed for request rank=0 decode_req.req.rid='" + rid
            + "' decode_req.req.bootstrap_room=" + room.room() + " with exception ";
        driver.listen(room.room(), event -> {
            switch (event) {
                case RoomEvent.Tokens tokens -> listener.progress(tokens.progress());
                case RoomEvent.Failed failed -> {
                    cancelRegistration(room.room());
                    listener.failed(failure + failed.reason());
                }
            }
        });
        register(room);
        driver.pumpSoon();
        return () -> {
            driver.forget(room.room());
            driver.model().abort(room.room(), driver.virtualNow());
            cancelRegistration(room.room());
            driver.pump();
        };
    }

    @Override
    public boolean computesPrompts() {
        return false;
    }

    @Override
    public void close() {
        driver.close();
        bootstrap.close();
    }

    private void register(InferenceRequest.Bootstrap room) {
        String where = room.host() + ":" + room.port();
        bootstrap.request(HttpMethod.POST, room.port(), room.host(), PrefillSide.ROOMS_PATH + room.room())
            .onSuccess(request -> {
                if (!driver.model().has(room.room())) {
                    request.reset();
                    return;
                }
                registrations.put(room.room(), request);
                request.send().compose(response -> response.body().map(body -> new Answer(response, body)))
                    .onSuccess(answer -> {
                        registrations.remove(room.room(), request);
                        handedOver(room.room(), where, answer.response(), answer.body());
                    })
                    .onFailure(e -> {
                        if (registrations.remove(room.room(), request)) {
                            fail(room.room(), "the bootstrap server at " + where + " went away: " + e.getMessage());
                        }
                    });
            })
            .onFailure(e -> fail(room.room(), "cannot reach the bootstrap server at " + where + ": "
                + e.getMessage()));
    }

    /** The bootstrap server's answer to a registration. */
    private record Answer(HttpClientResponse response, Buffer body) {
    }

    private void handedOver(long room, String where, HttpClientResponse response, Buffer body) {
        JsonNode answer;
        try {
            answer = json.readTree(body.getBytes());
        } catch (JacksonException e) {
            answer = json.missingNode();
        }
        if (response.statusCode() == 200 && answer.path("cached_tokens").canConvertToInt()) {
            driver.model().kvReady(room, answer.path("cached_tokens").intValue(), driver.virtualNow());
            driver.pump();
            return;
        }
        String message = answer.at("/error/message").isString() ? answer.at("/error/message").stringValue()
            : KvTransferError.of(room, "the bootstrap server at " + where + " answered " + response.statusCode());
        driver.model().fail(room, message, driver.virtualNow());
        driver.pump();
    }

    private void fail(long room, String reason) {
        driver.model().fail(room, KvTransferError.of(room, reason), driver.virtualNow());
        driver.pump();
    }

    private void cancelRegistration(long room) {
        HttpClientRequest request = registrations.remove(room);
        if (request != null) {
            request.reset();
        }
    }
}
