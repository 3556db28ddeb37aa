package dev.homing.gateway.proxy;

import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.http.HopLimit;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;

import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/**
 * Which headers cross the gateway. Towards the worker only the reference's list (authorization, request ids, trace
 * context, routing key) plus content-type, and the gateway's own hop count ({@link HopLimit}): cookies and client
 * metadata stay at the gateway. Back to the client
 * every header except hop-by-hop ones, which describe one connection and not the message.
 *
 * <p>Runs twice per request, so names are compared case-insensitively in place rather than lower-cased into new
 * strings, and the worker's headers are written straight into the upstream request's own map.
 */
public final class ForwardedHeaders {

    /** Lower case, as they are sent to the worker. */
    private static final String[] TO_WORKER = {"authorization", "x-request-id", "x-correlation-id", "traceparent",
        "tracestate", "x-smg-routing-key", "content-type"};
    private static final String REQUEST_ID_PREFIX = "x-request-id-";

    private static final String[] HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate",
        "proxy-authorization", "proxy-connection", "te", "trailer", "trailers", "transfer-encoding", "upgrade"};

    private ForwardedHeaders() {
    }

    /**
     * Writes the headers for the worker into {@code out}: the allowed client headers (names lower-cased), the request
     * id, the hop count, and the worker's own authorization ({@code "Bearer <key>"}) if it has one.
     */
    public static void toWorker(MultiMap client, MultiMap out, String requestId, String workerAuthorization) {
        for (Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> it = entries(client);
             it.hasNext(); ) {
            Map.Entry<? extends CharSequence, ? extends CharSequence> h = it.next();
            CharSequence name = h.getKey();
            String allowed = lowerCaseIn(name, TO_WORKER);
            if (allowed != null) {
                out.add(allowed, h.getValue());
            } else if (AsciiString.regionMatches(name, true, 0, REQUEST_ID_PREFIX, 0, REQUEST_ID_PREFIX.length())) {
                out.add(name.toString().toLowerCase(Locale.ROOT), h.getValue());
            }
        }
        out.set(HeaderNames.REQUEST_ID, requestId);
        out.set(HopLimit.NAME, HopLimit.next(client));
        if (workerAuthorization != null) {
            out.set(HttpHeaderNames.AUTHORIZATION, workerAuthorization);
        }
        if (!out.contains(HttpHeaderNames.CONTENT_TYPE)) {
            out.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        }
    }

    /** Copies the worker's response headers to the client response, minus hop-by-hop ones. */
    public static void toClient(MultiMap worker, MultiMap client) {
        for (Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> it = entries(worker);
             it.hasNext(); ) {
            Map.Entry<? extends CharSequence, ? extends CharSequence> h = it.next();
            if (lowerCaseIn(h.getKey(), HOP_BY_HOP) == null) {
                client.add(h.getKey(), h.getValue());
            }
        }
    }

    /**
     * The headers as they are stored: Vert.x's header maps are Netty's, whose plain iterator turns every name and
     * value into a new String.
     */
    private static Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> entries(
            MultiMap headers) {
        return headers instanceof HttpHeaders netty ? netty.iteratorCharSequence() : headers.iterator();
    }

    /** The entry of {@code lowerCaseNames} equal to {@code name} ignoring case, or null. */
    private static String lowerCaseIn(CharSequence name, String[] lowerCaseNames) {
        for (String candidate : lowerCaseNames) {
            if (candidate.length() == name.length() && AsciiString.contentEqualsIgnoreCase(candidate, name)) {
                return candidate;
            }
        }
        return null;
    }
}
