package dev.homing.gateway.proxy;

import dev.homing.core.kv.ExactOverlay;
import dev.homing.core.policy.Decision;
import dev.homing.core.policy.RoutingRequest;
import dev.homing.core.policy.RoutingView;
import dev.homing.gateway.http.HeaderNames;
import dev.homing.gateway.kvevents.ExactLookup;
import dev.homing.gateway.kvevents.ExactRouting;
import io.vertx.core.Future;
import io.vertx.core.http.HttpServerResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Locale;
import java.util.OptionalLong;

/**
 * What the exact view told one exchange, and what the exchange owes it back: the overlay its placements route on,
 * the decision that placed the leg whose engine computes the prompt (a regular worker, or a pair's prefill worker),
 * the headers that tell the client which view placed it, the expectation of that engine's events once the prompt is
 * prefilled, and the check of the gateway's token count against the engine's usage. Confined to the exchange's event
 * loop.
 */
final class ExactJudgement {

    private static final Logger LOG = LoggerFactory.getLogger(ExactJudgement.class);

    /** Null when the gateway routes on the tree alone ({@code --kv-events off}). */
    private final ExactRouting exactRouting;
    /** The decision that placed the current attempt's prompt: its view goes out in the answer's headers. */
    private Decision judged;
    /** The prompt's tokens, where an exact view counted them; else 0. */
    private int promptTokens;
    /** The prompt's tokens as the gateway counted them, to check against the engine's usage; null when not due. */
    private Future<Integer> countedTokens;
    /** One of the prompt's blocks no engine held, to check in the engine's events when its answer has no usage. */
    private OptionalLong unheldBlock = OptionalLong.empty();
    /** Whether the current attempt's engine prefilled the prompt (its answer began with success). */
    private boolean prefilled;

    ExactJudgement(ExactRouting exactRouting) {
        this.exactRouting = exactRouting;
    }

    /** {@code routing} with the look-up's overlay when it has one; a failed look-up routes on the tree. */
    RoutingRequest applied(RoutingRequest routing, Future<ExactLookup> lookup, String requestId) {
        if (lookup == null) {
            return routing;
        }
        if (lookup.failed()) {
            LOG.debug("request {}: no exact view ({}); routed on the tree", requestId, lookup.cause().getMessage());
            return routing;
        }
        countedTokens = lookup.result().countedTokens();
        unheldBlock = lookup.result().unheldBlock();
        ExactOverlay overlay = lookup.result().overlay();
        if (overlay == null) {
            return routing;
        }
        promptTokens = overlay.promptTokens();
        return routing.withExact(overlay);
    }

    /** The current attempt's prompt was placed by {@code decision}. */
    void placed(Decision decision) {
        judged = decision;
        prefilled = false;
    }

    /**
     * Which view placed the prompt ({@code exact}: its worker's engine reported what it holds; {@code approximate}:
     * the prefix tree's guess) and the share of the prompt it expected that engine to hold, so a client can compare
     * the prediction with the usage the engine reports.
     */
    void headers(HttpServerResponse response) {
        if (judged == null) {
            return;
        }
        response.putHeader(HeaderNames.ROUTING_VIEW, judged.view().label());
        double predicted = judged.view() == RoutingView.EXACT && promptTokens > 0
                ? (double) judged.predictedTokens() / promptTokens
                : judged.textChars() > 0 ? judged.matchRatio() : 0;
        response.putHeader(HeaderNames.PREDICTED_HIT, String.format(Locale.ROOT, "%.4f", predicted));
    }

    /**
     * The engine of {@code workerUrl}, sent the prompt at {@code sentNanos}, has prefilled it: where the exact view
     * placed it there, the blocks it lacked must show in its events. Call only for an answer with success: an
     * error's first bytes (a prompt past the context, a bad parameter) mean nothing was run, and expecting events
     * from it turned healthy workers to the tree on every such request.
     */
    void prefilled(String workerUrl, long sentNanos) {
        prefilled = true;
        if (exactRouting != null && judged != null && judged.view() == RoutingView.EXACT) {
            exactRouting.prefilled(workerUrl, sentNanos, promptTokens - judged.predictedTokens());
        }
    }

    /**
     * Whether the engine of {@code workerUrl} tokenizes alike: its count of the prompt against the gateway's, or for an
     * answer without usage (a stream that did not ask for it), whether its events come to show a block of the
     * gateway's tokens that no engine held before.
     */
    void answered(String workerUrl, UsageTail.Usage usage) {
        if (usage != null && usage.promptTokens() > 0) {
            if (countedTokens != null && countedTokens.succeeded()) {
                exactRouting.checked(workerUrl, countedTokens.result(), usage.promptTokens());
            }
        } else if (prefilled && unheldBlock.isPresent()) {
            exactRouting.blockStored(workerUrl, unheldBlock.getAsLong());
        }
    }
}
