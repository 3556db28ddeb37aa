package dev.homing.gateway.testing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bootstrap rooms of fake prefill and decode workers, shared by every fake of the test JVM as the contract has
 * it: a prefill worker hands the KV of a room over once it has computed the prompt, and a decode worker of the same
 * room waits for that before it decodes. Rooms are never reused (each pair draws a random 63-bit one), so the map
 * only grows for the length of a test run.
 */
final class FakeRooms {

    private static final JsonMapper JSON = JsonMapper.shared();
    private static final Map<Long, Promise<Void>> ROOMS = new ConcurrentHashMap<>();

    private FakeRooms() {
    }

    /**
     * The rooms of a request body: one for a single request, one per item of a batch; empty when the body carries no
     * bootstrap fields (a fake PD worker then answers 400, as an engine of that role would).
     */
    static List<Long> of(byte[] body) {
        JsonNode root = JSON.readTree(body);
        JsonNode room = root.path("bootstrap_room");
        if (!root.has("bootstrap_host") || !root.has("bootstrap_port")) {
            return List.of();
        }
        List<Long> rooms = new ArrayList<>();
        if (room.isArray()) {
            room.forEach(r -> rooms.add(r.asLong()));
        } else if (room.isNumber()) {
            rooms.add(room.asLong());
        }
        return rooms;
    }

    /** The prefill of {@code room} is done: its KV goes to its decode partner. */
    static void handOver(long room) {
        promise(room).tryComplete();
    }

    /** Completes when every one of {@code rooms} was handed over. */
    static Future<Void> handedOver(List<Long> rooms) {
        List<Future<Void>> waits = rooms.stream().map(r -> promise(r).future()).toList();
        return Future.all(waits).mapEmpty();
    }

    private static Promise<Void> promise(long room) {
        return ROOMS.computeIfAbsent(room, r -> Promise.promise());
    }
}
