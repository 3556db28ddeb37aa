package dev.homing.sim.http;

import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** The {@code data:} payloads of a server-sent event stream, for assertions. */
record ServerSentEvents(List<String> data) {

    static ServerSentEvents parse(String body) {
        List<String> data = new ArrayList<>();
        for (String event : body.split("\n\n")) {
            for (String line : event.split("\n")) {
                if (line.startsWith("data: ")) {
                    data.add(line.substring("data: ".length()));
                }
            }
        }
        return new ServerSentEvents(data);
    }

    /** How many events a raw HTTP/1.1 exchange carries, chunked framing and all. */
    static int countIn(String raw) {
        return raw.split("data: ", -1).length - 1;
    }

    boolean endsWithDone() {
        return !data.isEmpty() && data.getLast().equals("[DONE]");
    }

    /** Every event but {@code [DONE]}, as JSON. */
    List<JsonNode> json() {
        return data.stream().filter(d -> !d.equals("[DONE]")).map(SimEngineClient.JSON::readTree).toList();
    }
}
