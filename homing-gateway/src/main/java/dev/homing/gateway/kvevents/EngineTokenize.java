package dev.homing.gateway.kvevents;

import dev.homing.gateway.workers.UpstreamTarget;
import dev.homing.gateway.workers.Worker;
import dev.homing.tokenizer.ChatTurn;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The engine's own {@code /tokenize} (vLLM's shape, which the simulated engine and SGLang also answer), for a model
 * the gateway has no tokenizer for: the prompt's tokens exactly as the engine counts them, at one round trip.
 */
final class EngineTokenize {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    /** A tokenize call that takes longer is given up: the request is routed on the tree rather than wait. */
    private static final long TIMEOUT_MS = 2_000;

    private final HttpClient client;

    EngineTokenize(HttpClient client) {
        this.client = client;
    }

    /** {@code prompt}'s tokens as {@code worker}'s engine makes them; fails on any error, never blocks. */
    Future<int[]> tokens(Worker worker, String model, EnginePrompt prompt) {
        UpstreamTarget target = worker.target();
        RequestOptions options = target.request(HttpMethod.POST, "/tokenize").setConnectTimeout(TIMEOUT_MS)
                .setIdleTimeout(TIMEOUT_MS).putHeader("content-type", "application/json");
        if (target.authorization() != null) {
            options.putHeader("authorization", target.authorization());
        }
        Buffer body = Buffer.buffer(JSON.writeValueAsBytes(request(model, prompt)));
        return client.request(options)
                .compose(request -> request.send(body))
                .compose(response -> response.statusCode() / 100 == 2 ? response.body()
                        : Future.failedFuture("/tokenize answered " + response.statusCode()))
                .map(EngineTokenize::tokensOf);
    }

    private static ObjectNode request(String model, EnginePrompt prompt) {
        ObjectNode request = JSON.createObjectNode();
        if (model != null) {
            request.put("model", model);
        }
        switch (prompt) {
            case EnginePrompt.Chat chat -> {
                ArrayNode messages = request.putArray("messages");
                for (ChatTurn turn : chat.turns()) {
                    messages.addObject().put("role", turn.role()).put("content", turn.content());
                }
            }
            case EnginePrompt.Text text -> request.put("prompt", text.text());
            case EnginePrompt.Tokens tokens -> throw new IllegalArgumentException("token ids need no tokenizer");
        }
        return request;
    }

    private static int[] tokensOf(Buffer answer) {
        JsonNode tokens = JSON.readTree(answer.getBytes()).path("tokens");
        if (!tokens.isArray()) {
            throw new IllegalStateException("/tokenize answered no tokens array");
        }
        int[] ids = new int[tokens.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = tokens.get(i).asInt();
        }
        return ids;
    }
}
