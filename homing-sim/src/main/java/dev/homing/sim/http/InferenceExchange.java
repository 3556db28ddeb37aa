package dev.homing.sim.http;

import dev.homing.sim.model.GenerationRequest;
import dev.homing.sim.model.Progress;
import dev.homing.sim.model.PseudoWords;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * One inference request's life on the HTTP side: submit to the engine, turn its progress into a JSON answer or
 * server-sent events, apply token-count faults, and abort the engine request if the client goes away first.
 *
 * <p>Confined to the server's event loop.
 */
final class InferenceExchange {
    private final HttpServerRequest http;
    private final InferenceRequest request;
    private final EngineDriver driver;
    private final ResponseRenderer renderer;
    private final Faults faults;
    private final CompletedRequestLog completedLog;
    private final long seed;
    private final long createdSeconds = System.currentTimeMillis() / 1000;
    private final StringBuilder text = new StringBuilder();
    private String id;
    private long requestId;
    private int sentTokens;
    private boolean over;

    InferenceExchange(HttpServerRequest http, InferenceRequest request, EngineDriver driver,
                      ResponseRenderer renderer, Faults faults, CompletedRequestLog completedLog) {
        this.http = http;
        this.request = request;
        this.driver = driver;
        this.renderer = renderer;
        this.faults = faults;
        this.completedLog = completedLog;
        this.seed = PseudoWords.seedOf(request.promptTokens(), driver.engine().config().seed());
    }

    /**
     * Submits the request and starts answering.
     *
     * @throws IllegalArgumentException if the engine can never run the request
     */
    void start() {
        requestId = driver.submit(new GenerationRequest(request.promptTokens(), request.maxNewTokens()),
            this::onProgress);
        id = prefix() + Long.toHexString(seed & 0xffffffffL) + "-" + requestId;
        HttpServerResponse response = http.response();
        response.closeHandler(ignored -> {
            if (!over) {
                over = true;
                driver.abort(requestId);
            }
        });
        if (request.stream()) {
            response.setChunked(true);
            response.putHeader("content-type", "text/event-stream");
            response.putHeader("cache-control", "no-cache");
            var start = renderer.streamStart(answer(null));
            if (start != null) {
                response.write(start);
            }
        }
    }

    private void onProgress(Progress progress) {
        if (over) {
            return;
        }
        int upTo = progress.completionTokens();
        boolean reset = faults.resetAfterTokens() > 0 && upTo >= faults.resetAfterTokens() && !progress.finished();
        boolean stall = faults.stallAfterTokens() > 0 && upTo >= faults.stallAfterTokens() && !progress.finished();
        String delta = PseudoWords.text(seed, sentTokens, upTo, request.maxNewTokens());
        sentTokens = upTo;
        text.append(delta);
        HttpServerResponse response = http.response();
        if (request.stream()) {
            response.write(renderer.streamDelta(answer(progress), delta));
        }
        if (reset || stall) {
            // Both faults leave the engine at once: a dead or hung engine process frees nothing, but the model's
            // slots are not what these faults are testing, and leaking them would skew later requests.
            over = true;
            driver.abort(requestId);
            if (reset) {
                http.connection().close();
            }
            return;
        }
        if (!progress.finished()) {
            return;
        }
        over = true;
        // Logged before the answer leaves: an engine killed in between shows as a duplicate, never hides one.
        completedLog.completed(http.getHeader("x-request-id"));
        if (request.stream()) {
            response.end(renderer.streamEnd(answer(progress)));
        } else {
            response.putHeader("content-type", "application/json");
            response.end(renderer.complete(answer(progress)));
        }
    }

    private ResponseRenderer.Answer answer(Progress progress) {
        return new ResponseRenderer.Answer(request, id, createdSeconds, progress, text.toString());
    }

    private String prefix() {
        return switch (request.api()) {
            case CHAT -> "chatcmpl-";
            case COMPLETION -> "cmpl-";
            case RESPONSES -> "resp_";
            case GENERATE -> "";
        };
    }
}
