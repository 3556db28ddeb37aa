package dev.homing.sim.http;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;

/**
 * Reads the fields that pair a request's prefill with its decode: {@code bootstrap_host}, {@code bootstrap_port} and
 * {@code bootstrap_room}, each a value for every item or an array of one value an item. As SGLang reads them, one
 * room for several items means consecutive rooms from it. Bad values are a {@link BadRequest} naming the field.
 * Stateless.
 */
final class BootstrapFields {
    static final String HOST = "bootstrap_host";
    static final String PORT = "bootstrap_port";
    static final String ROOM = "bootstrap_room";

    private BootstrapFields() {
    }

    /** One room for each of {@code items}, or null when the request has no bootstrap field at all. */
    static List<InferenceRequest.Bootstrap> of(JsonNode root, int items) {
        JsonNode host = root.path(HOST);
        JsonNode port = root.path(PORT);
        JsonNode room = root.path(ROOM);
        if (absent(host) && absent(port) && absent(room)) {
            return null;
        }
        if (absent(host) || absent(port) || absent(room)) {
            throw new BadRequest("'" + HOST + "', '" + PORT + "' and '" + ROOM + "' come together: a prefill/decode "
                + "request needs all three");
        }
        List<String> hosts = values(host, HOST, items, BootstrapFields::host);
        List<Integer> ports = values(port, PORT, items, BootstrapFields::port);
        List<Long> rooms = room.isArray() ? values(room, ROOM, items, BootstrapFields::room) : consecutive(room, items);
        List<InferenceRequest.Bootstrap> bootstraps = new ArrayList<>(items);
        for (int i = 0; i < items; i++) {
            bootstraps.add(new InferenceRequest.Bootstrap(hosts.get(i), ports.get(i), rooms.get(i)));
        }
        return bootstraps;
    }

    /** The value of every item, or the array's values, one an item. */
    private static <T> List<T> values(JsonNode field, String name, int items, Function<JsonNode, T> read) {
        if (!field.isArray()) {
            return Collections.nCopies(items, read.apply(field));
        }
        if (field.size() != items) {
            throw new BadRequest("'" + name + "' has " + field.size() + " values for " + items + " items: it needs one "
                + "an item");
        }
        List<T> values = new ArrayList<>(items);
        for (JsonNode value : field) {
            values.add(read.apply(value));
        }
        return values;
    }

    private static List<Long> consecutive(JsonNode field, int items) {
        long first = room(field);
        if (first > Long.MAX_VALUE - items) {
            throw new BadRequest("'" + ROOM + "' leaves no room for " + items + " consecutive rooms");
        }
        List<Long> rooms = new ArrayList<>(items);
        for (int i = 0; i < items; i++) {
            rooms.add(first + i);
        }
        return rooms;
    }

    private static String host(JsonNode value) {
        if (!value.isString() || value.stringValue().isBlank()) {
            throw new BadRequest("'" + HOST + "' must be a host name or address");
        }
        return value.stringValue();
    }

    private static int port(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1
            || value.intValue() > 65_535) {
            throw new BadRequest("'" + PORT + "' must be a port, 1 to 65535");
        }
        return value.intValue();
    }

    private static long room(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
            throw new BadRequest("'" + ROOM + "' must be a non-negative 63-bit integer");
        }
        return value.longValue();
    }

    private static boolean absent(JsonNode field) {
        return field.isMissingNode() || field.isNull();
    }
}
