package dev.homing.sim.http;

import dev.homing.sim.model.Progress;
import dev.homing.sim.model.PseudoWords;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * One inference request's life on the HTTP side: start each of its items on the engine's {@link InferenceBackend},
 * turn their progress into a JSON answer or server-sent events, apply token-count faults, and abandon every item if
 * the client goes away first. A batch is answered with an array of answers, one an item, or with one stream of every
 * item's events, each carrying its index, then {@code [DONE]}.
 *
 * <p>A stream's head goes out at once, but on a prefill or a decode engine it waits for the first token: a room that
 * fails before any is then an HTTP 500 in the OpenAI error shape, as a request that is not streamed gets. A stream that
 * has begun ends with the error as its last event instead. One failed item fails the whole request.
 *
 * <p>Invariant: the response is ended, reset or left to a fault exactly once ({@code over}), and every item not
 * finished by then is abandoned. Confined to the server's event loop.
 */
final class InferenceExchange {
    private final HttpServerRequest http;
    private final InferenceBackend backend;
    private final ResponseRenderer renderer;
    private final Faults faults;
    private final CompletedRequestLog completedLog;
    private final boolean stream;
    private final boolean batch;
    private final boolean headAtOnce;
    private final long createdSeconds = System.currentTimeMillis() / 1000;
    private final List<Item> items = new ArrayList<>();
    private int unfinished;
    private boolean headSent;
    private boolean over;

    /**
     * @param serials    numbers the answers' ids, one an item
     * @param headAtOnce whether a stream's head goes out before its first token
     */
    InferenceExchange(HttpServerRequest http, RequestParser.Parsed parsed, InferenceBackend backend,
                      ResponseRenderer renderer, Faults faults, CompletedRequestLog completedLog, long engineSeed,
                      LongSupplier serials, boolean headAtOnce) {
        this.http = http;
        this.backend = backend;
        this.renderer = renderer;
        this.faults = faults;
        this.completedLog = completedLog;
        this.stream = parsed.items().getFirst().stream();
        this.batch = parsed.batch();
        this.headAtOnce = headAtOnce;
        for (int i = 0; i < parsed.items().size(); i++) {
            items.add(new Item(parsed.items().get(i), batch ? i : -1, engineSeed, serials.getAsLong()));
        }
        this.unfinished = items.size();
    }

    /** One item's answer as it grows. */
    private final class Item implements InferenceBackend.Listener {
        final InferenceRequest request;
        final int index;
        final long seed;
        final String id;
        final StringBuilder text = new StringBuilder();
        Progress last;
        int sentTokens;
        boolean finished;
        Runnable abandon;

        Item(InferenceRequest request, int index, long engineSeed, long serial) {
            this.request = request;
            this.index = index;
            this.seed = PseudoWords.seedOf(request.promptTokens(), engineSeed);
            this.id = prefix(request.api()) + Long.toHexString(seed & 0xffffffffL) + "-" + serial;
        }

        @Override
        public void progress(Progress progress) {
            onProgress(this, progress);
        }

        @Override
        public void failed(String message) {
            finished = true;
            onFailed(message);
        }

        ResponseRenderer.Answer answer() {
            return new ResponseRenderer.Answer(request, id, createdSeconds, last, text.toString(), seed, index,
                backend.computesPrompts());
        }
    }

    /**
     * Starts every item and starts answering.
     *
     * @throws BadRequest if the engine cannot take an item (the items started before it are abandoned)
     */
    void start() {
        for (Item item : items) {
            try {
                item.abandon = backend.start(item.request, item.id, item);
            } catch (BadRequest refused) {
                abandonUnfinished();
                throw refused;
            }
        }
        http.response().closeHandler(ignored -> {
            if (!over) {
                over = true;
                abandonUnfinished();
            }
        });
        if (stream && headAtOnce) {
            sendHead();
        }
    }

    private void onProgress(Item item, Progress progress) {
        if (over) {
            return;
        }
        int upTo = progress.completionTokens();
        boolean reset = faults.resetAfterTokens() > 0 && upTo >= faults.resetAfterTokens() && !progress.finished();
        boolean stall = faults.stallAfterTokens() > 0 && upTo >= faults.stallAfterTokens() && !progress.finished();
        int from = item.sentTokens;
        String delta = PseudoWords.text(item.seed, from, upTo, item.request.maxNewTokens());
        item.sentTokens = upTo;
        item.text.append(delta);
        item.last = progress;
        HttpServerResponse response = http.response();
        if (stream) {
            sendHead();
            response.write(renderer.streamDelta(item.answer(), delta, from));
        }
        if (reset || stall) {
            // Both faults leave the engine at once: a dead or hung engine process frees nothing, but the model's
            // slots are not what these faults are testing, and leaking them would skew later requests.
            over = true;
            abandonUnfinished();
            if (reset) {
                http.connection().close();
            }
            return;
        }
        if (!progress.finished()) {
            return;
        }
        item.finished = true;
        if (--unfinished > 0) {
            return;
        }
        over = true;
        // Logged before the answer leaves: an engine killed in between shows as a duplicate, never hides one.
        completedLog.completed(http.getHeader("x-request-id"));
        if (stream) {
            response.end(renderer.streamEnd(item.answer()));
        } else if (batch) {
            response.putHeader("content-type", "application/json");
            response.end(renderer.completeBatch(items.stream().map(Item::answer).toList()));
        } else {
            response.putHeader("content-type", "application/json");
            response.end(renderer.complete(item.answer()));
        }
    }

    private void onFailed(String message) {
        if (over) {
            return;
        }
        over = true;
        abandonUnfinished();
        HttpServerResponse response = http.response();
        if (headSent) {
            response.end(renderer.errorEvent(500, message));
        } else {
            response.setStatusCode(500).putHeader("content-type", "application/json")
                .end(renderer.error(500, message));
        }
    }

    private void sendHead() {
        if (headSent) {
            return;
        }
        headSent = true;
        HttpServerResponse response = http.response();
        response.setChunked(true);
        response.putHeader("content-type", "text/event-stream");
        response.putHeader("cache-control", "no-cache");
        if (!batch) {
            var start = renderer.streamStart(items.getFirst().answer());
            if (start != null) {
                response.write(start);
            }
        }
    }

    private void abandonUnfinished() {
        for (Item item : items) {
            if (!item.finished && item.abandon != null) {
                item.finished = true;
                item.abandon.run();
            }
        }
    }

    private static String prefix(Api api) {
        return switch (api) {
            case CHAT -> "chatcmpl-";
            case COMPLETION -> "cmpl-";
            case RESPONSES -> "resp_";
            case GENERATE -> "";
        };
    }
}
