package dev.homing.gateway.proxy;

import io.vertx.core.MultiMap;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which headers cross the gateway. Towards the worker only the reference's list (authorization, request ids, trace
 * context, routing key) plus content-type: cookies and client metadata stay at the gateway. Back to the client
 * every header except hop-by-hop ones, which describe one connection and not the message.
 */
public final class ForwardedHeaders {

    private static final Set<String> TO_WORKER = Set.of("authorization", "x-request-id", "x-correlation-id",
            "traceparent", "tracestate", "x-smg-routing-key", "content-type");

    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-authenticate",
            "proxy-authorization", "proxy-connection", "te", "trailer", "trailers", "transfer-encoding", "upgrade");

    private ForwardedHeaders() {
    }

    /** Headers for the worker: the allowed client headers, the request id, and the worker's own key if it has one. */
    public static MultiMap toWorker(MultiMap client, String requestId, String workerApiKey) {
        MultiMap out = MultiMap.caseInsensitiveMultiMap();
        for (Map.Entry<String, String> h : client) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (TO_WORKER.contains(name) || name.startsWith("x-request-id-")) {
                out.add(name, h.getValue());
            }
        }
        out.set("x-request-id", requestId);
        if (workerApiKey != null) {
            out.set("authorization", "Bearer " + workerApiKey);
        }
        if (!out.contains("content-type")) {
            out.set("content-type", "application/json");
        }
        return out;
    }

    /** Copies the worker's response headers to the client response, minus hop-by-hop ones. */
    public static void toClient(MultiMap worker, MultiMap client) {
        for (Map.Entry<String, String> h : worker) {
            if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                client.add(h.getKey(), h.getValue());
            }
        }
    }
}
