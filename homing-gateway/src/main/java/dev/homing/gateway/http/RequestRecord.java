package dev.homing.gateway.http;

import dev.homing.gateway.metrics.GatewayMetrics;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

import java.util.Locale;

/**
 * What one request did, filled in as it goes and written once at completion: one access-log line and the HTTP
 * metrics. In the line's text every value is one field ({@link #field}): what a client sent cannot forge another.
 * The same fields go with the line as key-value pairs, numbers as numbers and unknown ones left out, which
 * {@code --log-json} writes as the fields of the line's JSON object (its encoder escapes every value).
 * Confined to the request's event loop; {@link #complete} ignores calls after the first.
 */
public final class RequestRecord {

    private static final Logger ACCESS = LoggerFactory.getLogger("dev.homing.gateway.access");

    private final GatewayMetrics metrics;
    private final String requestId;
    private final String method;
    private final String path;
    private final long startNanos = System.nanoTime();
    private String model = "-";
    private String worker = "-";
    private String branch = "-";
    private String view = "-";
    private double matchRatio = -1;
    private long firstByteNanos = -1;
    private long promptTokens = -1;
    private long cachedTokens = -1;
    /** The request's trace when it is traced, else null. */
    private String traceId;
    private boolean completed;

    public RequestRecord(GatewayMetrics metrics, String requestId, String method, String path) {
        this.metrics = metrics;
        this.requestId = requestId;
        this.method = method;
        this.path = path;
    }

    public String requestId() {
        return requestId;
    }

    public long startNanos() {
        return startNanos;
    }

    /** Placed on {@code worker} by the policy's {@code branch}, judged on the {@code view} ({@code exact}/{@code approximate}). */
    public void routed(String model, String worker, String branch, double matchRatio, String view) {
        this.model = model;
        this.worker = worker;
        this.branch = branch;
        this.matchRatio = matchRatio;
        this.view = view;
    }

    /** The request is traced, in the trace {@code id} (null: it is not). */
    public void traced(String id) {
        this.traceId = id;
    }

    /** The token counts the worker reported for this request. */
    public void usage(long prompt, long cached) {
        this.promptTokens = prompt;
        this.cachedTokens = cached;
    }

    /** The request moved to another worker before anything was sent (the first refused the connection). */
    public void rerouted(String newWorker) {
        this.worker = newWorker;
        this.branch = branch + "+failover";
    }

    public String model() {
        return model;
    }

    /** Marks the first response byte from the worker; returns nanos since the request arrived. */
    public long firstByte() {
        if (firstByteNanos < 0) {
            firstByteNanos = System.nanoTime() - startNanos;
        }
        return firstByteNanos;
    }

    public boolean completed() {
        return completed;
    }

    /** Completes the record when {@code response} ends, with its status and error code. */
    public void completeWhenEnded(HttpServerResponse response) {
        response.endHandler(v -> complete(response.getStatusCode(), response.headers().get(HeaderNames.ERROR_CODE)));
    }

    /** Writes the access-log line and the HTTP metrics; later calls do nothing. */
    public void complete(int status, String errorCode) {
        if (completed) {
            return;
        }
        completed = true;
        long total = System.nanoTime() - startNanos;
        metrics.httpRequest(method, path, status, errorCode, total);
        if (!ACCESS.isInfoEnabled()) {
            return;
        }
        String ratio = matchRatio < 0 ? "-" : String.format(Locale.ROOT, "%.3f", matchRatio);
        String ttfb = firstByteNanos < 0 ? "-" : String.format(Locale.ROOT, "%.1f", firstByteNanos / 1e6);
        String totalMs = String.format(Locale.ROOT, "%.1f", total / 1e6);
        // The message reads well as text; the key-value pairs make each field a field in JSON logs.
        LoggingEventBuilder line = ACCESS.atInfo()
                .addKeyValue("request_id", requestId).addKeyValue("method", method).addKeyValue("route", path)
                .addKeyValue("model", model).addKeyValue("worker", worker).addKeyValue("branch", branch)
                .addKeyValue("view", view).addKeyValue("status", status).addKeyValue("total_ms", tenths(total));
        if (matchRatio >= 0) {
            line.addKeyValue("match_ratio", Math.round(matchRatio * 1000) / 1000.0);
        }
        if (errorCode != null) {
            line.addKeyValue("error", errorCode);
        }
        if (promptTokens >= 0) {
            line.addKeyValue("prompt_tokens", promptTokens).addKeyValue("cached_tokens", cachedTokens);
        }
        if (firstByteNanos >= 0) {
            line.addKeyValue("ttfb_ms", tenths(firstByteNanos));
        }
        if (traceId != null) {
            line.addKeyValue("trace_id", traceId);
        }
        line.log("request_id={} method={} route={} model={} worker={} branch={} view={} match_ratio={} status={}{} "
                        + "prompt_tokens={} cached_tokens={} ttfb_ms={} total_ms={}{}",
                field(requestId), field(method), field(path), field(model), field(worker), field(branch),
                field(view), ratio, status, errorCode == null ? "" : " error=" + field(errorCode),
                promptTokens < 0 ? "-" : promptTokens, cachedTokens < 0 ? "-" : cachedTokens, ttfb, totalMs,
                traceId == null ? "" : " trace_id=" + traceId);
    }

    /** Nanoseconds as milliseconds to a tenth. */
    private static double tenths(long nanos) {
        return Math.round(nanos / 1e5) / 10.0;
    }

    /**
     * A value as one field of the text line: as it is when every character is one a field may hold bare, else in
     * double quotes with backslash escapes ({@code \"}, {@code \\}, and {@code \\u} with four hex digits for
     * anything outside printable ASCII). A request id, model name or path a client chose cannot end its field
     * early, start another ({@code x status=200}) or start a new line.
     */
    static String field(String value) {
        if (!value.isEmpty() && value.chars().allMatch(RequestRecord::isBare)) {
            return value;
        }
        StringBuilder quoted = new StringBuilder(value.length() + 8).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                quoted.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return quoted.append('"').toString();
    }

    /** Characters a field may hold without quotes: none of space, quote, equals sign, backslash or control. */
    private static boolean isBare(int c) {
        return c > 0x20 && c < 0x7f && c != '"' && c != '=' && c != '\\';
    }
}
